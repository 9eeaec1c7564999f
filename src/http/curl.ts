/** Renders a request as a curl command line that can be pasted into a shell. Secrets are `$ENV` references. */
export function toCurl(method: string, url: string, headers: Record<string, string>, authArgs: string[], body?: string): string {
  const parts = [`curl -sS -X ${method} ${shellQuote(url)}`, ...authArgs]
  for (const [name, value] of Object.entries(headers)) parts.push(`-H ${shellQuote(`${name}: ${value}`)}`)
  if (body !== undefined) parts.push(`--data ${shellQuote(body)}`)
  return parts.join(' \\\n  ')
}

export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", String.raw`'\''`)}'`
}
