/** A call to a sandbox's control routes (`/__sandbox/...`): GET without a body, POST with one. */
export async function sandboxControlCall(origin: string, path: string, body?: unknown, method?: string): Promise<any> {
  const res = await fetch(`${origin}/__sandbox/${path.replace(/^\//, '')}`, {
    method: method ?? (body === undefined ? 'GET' : 'POST'),
    headers: body === undefined ? {} : {'content-type': 'application/json'},
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`control ${path}: ${res.status} ${text}`)
  return text ? JSON.parse(text) : undefined
}
