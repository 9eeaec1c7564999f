/** A body's JSON value, or undefined when it is empty or not JSON. */
export function parseJson(text: string): unknown {
  if (!text) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
