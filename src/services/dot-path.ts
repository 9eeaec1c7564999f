/** `a.b.c` of a JSON value: columns of the output views and the checks of a scenario step read values this way. */
export function getPath(value: unknown, path: string): unknown {
  let current: unknown = value
  for (const key of path.split('.')) {
    if (current === null || current === undefined || typeof current !== 'object') return undefined
    current = (current as Record<string, unknown>)[key]
  }

  return current
}
