/**
 * What `sandbox diff` compares in two answers to the same probe: the status code, the shape of the
 * body (every field's path and JSON type, null and absent included) and the values at the paths a
 * probe names as enums (statuses, error codes). Every other value (ids, times, URLs, keys,
 * amounts, messages) is meant to differ between two services and is never compared.
 */

/** One probe's answer on one side: the status and the body (parsed JSON, the text when it is not JSON, undefined when empty). */
export interface Answer {
  status: number
  body: unknown
}

/** A difference found by a probe: where (`status`, a field's path, `values of <path>`), and what each side showed. */
export interface Difference {
  probe: string
  where: string
  ours: string
  theirs: string
}

const ABSENT = 'absent'

/** `items[].name`: a path into a JSON value; an array's elements are one path, `[]`. */
function join(prefix: string, key: string): string {
  return prefix === '' ? key : `${prefix}.${key}`
}

function typeOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}

/**
 * Every path of a body and the JSON types seen there. The elements of an array are merged into
 * one `[]` path (each field's types over all elements); an empty array has no element paths, so
 * the elements of two lists are compared only when both sides have some.
 */
export function shapeOf(body: unknown): Map<string, Set<string>> {
  const shape = new Map<string, Set<string>>()
  const note = (path: string, type: string) => {
    let types = shape.get(path)
    if (!types) shape.set(path, (types = new Set()))
    types.add(type)
  }

  const walk = (value: unknown, path: string, depth: number) => {
    note(path, typeOf(value))
    if (depth > 12 || value === null || typeof value !== 'object') return
    if (Array.isArray(value)) {
      for (const item of value) walk(item, `${path}[]`, depth + 1)
      return
    }

    for (const [key, child] of Object.entries(value)) walk(child, join(path, key), depth + 1)
  }

  if (typeof body === 'string') note('', 'text')
  else if (body === undefined) note('', 'empty')
  else walk(body, '', 0)
  return shape
}

/** The values at `path` (`[]` steps into every element), as strings; objects and arrays are not values. */
export function valuesAt(body: unknown, path: string): string[] {
  let found: unknown[] = [body]
  for (const step of path.split('.')) {
    const array = step.endsWith('[]')
    const key = array ? step.slice(0, -2) : step
    found = found.flatMap((v) => {
      const next = key === '' ? v : v && typeof v === 'object' && !Array.isArray(v) && Object.hasOwn(v, key) ? (v as Record<string, unknown>)[key] : undefined
      return array ? (Array.isArray(next) ? next : []) : [next]
    })
  }

  return [...new Set(found.filter((v) => v !== undefined && v !== null && typeof v !== 'object').map(String))].sort()
}

/** A path's element paths exist on both sides only when both lists have elements: otherwise that part of the shape is not compared. */
function comparable(path: string, ours: Map<string, Set<string>>, theirs: Map<string, Set<string>>): boolean {
  let at = path.indexOf('[]')
  while (at !== -1) {
    const list = path.slice(0, at + 2)
    if (!ours.has(list) || !theirs.has(list)) return false
    at = path.indexOf('[]', at + 2)
  }

  return true
}

const types = (set: Set<string> | undefined) => (set ? [...set].sort().join(' or ') : ABSENT)
const shown = (values: string[]) => (values.length === 0 ? '(none)' : values.join(', '))

/** The differences between two answers to one probe, in a stable order: status, then shape by path, then enum values. */
export function compareAnswers(
  probe: string,
  ours: Answer,
  theirs: Answer,
  options: {enums?: readonly string[]; accountFields?: readonly string[]} = {},
): Difference[] {
  const {accountFields = [], enums = []} = options
  const differences: Difference[] = []
  if (ours.status !== theirs.status) differences.push({probe, where: 'status', ours: String(ours.status), theirs: String(theirs.status)})
  // A success on one side and a refusal on the other: two kinds of body, whose fields say nothing more than the status.
  if (ours.status < 400 !== theirs.status < 400) return differences
  const a = shapeOf(ours.body)
  const b = shapeOf(theirs.body)
  const paths = [...new Set([...a.keys(), ...b.keys()])].filter((p) => comparable(p, a, b)).sort()
  for (const path of paths) {
    const [mine, other] = [types(a.get(path)), types(b.get(path))]
    // A field the account's own data fills (a user's birth date): one account has it, another not; its type still counts.
    if ((mine === ABSENT || other === ABSENT) && accountFields.some((f) => path === f || path.startsWith(`${f}.`) || path.startsWith(`${f}[]`))) continue
    // A field absent on one side: its own row; the fields under it say nothing more.
    const parentAbsent = paths.some((p) => p !== path && (path.startsWith(`${p}.`) || path.startsWith(`${p}[]`)) && (!a.has(p) || !b.has(p)))
    if (mine !== other && !parentAbsent) differences.push({probe, where: path === '' ? '(body)' : path, ours: mine, theirs: other})
  }

  for (const path of enums) {
    const [mine, other] = [valuesAt(ours.body, path), valuesAt(theirs.body, path)]
    // Compared where both sides show the field: its absence is already a difference of shape.
    if (mine.length > 0 && other.length > 0 && shown(mine) !== shown(other)) differences.push({probe, where: `values of ${path}`, ours: shown(mine), theirs: shown(other)})
  }

  return differences
}
