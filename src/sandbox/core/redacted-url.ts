/** A database URL as it may be shown: its password replaced (the URL itself never is: it holds the password). */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password) parsed.password = '***'
    return parsed.toString()
  } catch {
    return 'the database URL (unparsable)'
  }
}
