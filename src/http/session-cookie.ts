/** The `connect.sid` value of a `Set-Cookie` answer header (one header or several). */
export function sessionFromHeaders(headers: Record<string, string | string[] | undefined>): string | undefined {
  const raw = headers['set-cookie']
  const list = Array.isArray(raw) ? raw : raw ? [raw] : []
  for (const cookie of list) {
    const m = /(?:^|[;,]\s*)connect\.sid=([^;,\s]+)/.exec(cookie)
    if (m) return m[1]
  }

  return undefined
}
