/** The header that opens a sandbox's control routes (`/__sandbox/...`) to a test that holds its token. */
export function controlHeaders(token: string): Record<string, string> {
  return {authorization: `Bearer ${token}`}
}

/** A call to a sandbox's control routes (`/__sandbox/...`) with its token: GET without a body, POST with one. */
export async function sandboxControlCall(
  sandbox: {origin: string; token: string},
  path: string,
  body?: unknown,
  method?: string,
): Promise<any> {
  const res = await fetch(`${sandbox.origin}/__sandbox/${path.replace(/^\//, '')}`, {
    method: method ?? (body === undefined ? 'GET' : 'POST'),
    headers: {...controlHeaders(sandbox.token), ...(body === undefined ? {} : {'content-type': 'application/json'})},
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`control ${path}: ${res.status} ${text}`)
  return text ? JSON.parse(text) : undefined
}
