/**
 * `opsctl api -f key=value` (a string) and `-F key=value` (typed), as `gh api` reads them: the JSON
 * body of a request, or its query for a GET. A key may nest (`totalAmount[value]=1.00`) and build
 * lists (`symptoms[]=cough`, `items[][name]=Tea`). Every mistake is a usage error: nothing is sent.
 */
import {UsageError} from '../errors.js'
import {MAX_DATA_DEPTH, readTextFile} from './data-input.js'

export type FieldValue = boolean | null | number | string

export interface Field {
  /** As typed, for error messages. */
  key: string
  /** The key's parts: a name, then one part per bracket; `''` is `[]` (append to a list). */
  path: string[]
  value: FieldValue
}

const KEY = /^([^[\]]+)((?:\[[^[\]]*])*)$/
/** An integer JSON keeps exactly; `1.00` stays a string (money amounts are strings in both services). */
const INTEGER = /^-?(?:0|[1-9]\d*)$/

/**
 * The fields of `-f` (raw) and `-F` (typed), in the order typed (`items[][name]` groups by it).
 * At most one value reads stdin (`@-`).
 */
export async function readFields(given: {pair: string; typed: boolean}[]): Promise<Field[]> {
  const fields = given.map(({pair, typed}) => ({...field(pair, typed ? '-F' : '-f'), typed}))
  if (fields.filter((f) => f.typed && f.value === '@-').length > 1) throw new UsageError('-F reads stdin (@-) once; give the other values from files (@path)')
  for (const f of fields) if (f.typed) f.value = await typedValue(f.value as string)
  return fields.map(({key, path, value}) => ({key, path, value}))
}

function field(pair: string, flag: string): Field {
  const i = pair.indexOf('=')
  if (i <= 0) throw new UsageError(`${flag} expects key=value, got "${pair}"`)
  const key = pair.slice(0, i)
  const match = KEY.exec(key)
  if (!match) throw new UsageError(`${flag} ${key}: a key is a name with optional [sub] or [] parts, like totalAmount[value] or symptoms[]`)
  const path = [match[1], ...[...match[2].matchAll(/\[([^[\]]*)]/g)].map((m) => m[1])]
  if (path.length > MAX_DATA_DEPTH) throw new UsageError(`${flag} ${key.slice(0, 40)}…: nested ${path.length} levels deep; at most ${MAX_DATA_DEPTH} levels are accepted`)
  if (path.some((part, n) => part === '' && path[n + 1] === '')) throw new UsageError(`${flag} ${key}: a list of lists ([][]) cannot be written as a field; use --data`)
  return {key, path, value: pair.slice(i + 1)}
}

/** `-F`: true, false, null and integers as JSON; `@path` a file's text, `@-` stdin's; anything else a string. */
async function typedValue(text: string): Promise<FieldValue> {
  if (text === 'true') return true
  if (text === 'false') return false
  if (text === 'null') return null
  if (INTEGER.test(text) && Number.isSafeInteger(Number(text))) return Number(text)
  // Bounded and text only: a binary file is refused, never sent mangled into a string.
  if (text.startsWith('@')) return readTextFile(text.slice(1))

  return text
}

type Node = Record<string, unknown> | unknown[]

/**
 * The JSON body the fields spell. `a[b]=1` makes `{a: {b: 1}}`; `a[]=1 a[]=2` makes `{a: [1, 2]}`;
 * `a[][n]=x a[][m]=y a[][n]=z` makes `{a: [{n: x, m: y}, {n: z}]}`: a key already set in the last
 * object of the list starts a new one. A value given twice for one key, or a key used both as a
 * value and as an object or list, is a usage error. Objects have no prototype: `__proto__` is a key.
 */
export function bodyOf(fields: Field[]): Record<string, unknown> {
  const body: Record<string, unknown> = Object.create(null)
  for (const f of fields) place(body, f)
  return body
}

function place(root: Record<string, unknown>, f: Field): void {
  let node: Node = root
  for (let n = 0; n < f.path.length; n++) {
    const part = f.path[n]
    const last = n === f.path.length - 1
    const next = f.path[n + 1]
    if (Array.isArray(node)) {
      if (part !== '') throw conflict(f)
      if (last) {
        node.push(f.value)
        return
      }

      // `a[][name]`: the list's last object takes `name` unless it already has it.
      const tail: unknown = node.at(-1)
      if (isObject(tail) && !(next in tail)) {
        node = tail
      } else {
        const fresh = Object.create(null) as Record<string, unknown>
        node.push(fresh)
        node = fresh
      }

      continue
    }

    if (part === '') throw conflict(f)
    if (last) {
      if (part in node) throw new UsageError(`The field ${f.key} is given twice; use ${f.key}[]=... for a list`)
      node[part] = f.value
      return
    }

    const child = part in node ? node[part] : (node[part] = next === '' ? [] : Object.create(null))
    if (next === '' ? !Array.isArray(child) : !isObject(child)) throw conflict(f)
    node = child as Node
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function conflict(f: Field): UsageError {
  return new UsageError(`The field ${f.key} does not fit the fields before it (a value, an object and a list under one name)`)
}

/**
 * The query the fields spell, for a GET: `k=v`, and `k[]=v` or a repeated `k=v` for a repeated
 * parameter (`symptoms=cough&symptoms=wheeze`). A query has no nesting: `k[sub]=v` is refused.
 * null is sent as an empty value.
 */
export function queryOf(fields: Field[]): Record<string, string[]> {
  const query: Record<string, string[]> = Object.create(null)
  for (const f of fields) {
    if (f.path.length > 2 || (f.path.length === 2 && f.path[1] !== '')) {
      throw new UsageError(`The field ${f.key} cannot go in a query (a GET's fields are its query parameters, which do not nest); send a body with another method or --data`)
    }

    const [name] = f.path
    query[name] = [...(query[name] ?? []), f.value === null ? '' : String(f.value)]
  }

  return query
}

/**
 * An amount typed with fewer than two decimals (`12.5`, `3`), which the two decimals complete
 * exactly. More decimals or a sign get no suggestion: no amount to send follows from them without
 * rounding someone's money.
 */
const SHORT_OF_TWO_DECIMALS = /^\d+(?:\.\d)?$/

/**
 * What to say when the service refused a field that was typed as a number but is an amount: both
 * services take amounts as text with exactly two decimals, and `-F` makes JSON of integers only
 * (as gh does), so `-F 'totalAmount[value]=12.5'` sends the text "12.5". Undefined otherwise.
 */
export function amountHint(fields: readonly Field[], refused: readonly {field: string; description: string}[]): string | undefined {
  for (const f of fields) {
    const value = String(f.value)
    if (!((typeof f.value === 'number' || typeof f.value === 'string') && SHORT_OF_TWO_DECIMALS.test(value))) continue
    const dotted = f.path.filter((p) => p !== '').join('.')
    if (!refused.some((r) => r.field === dotted && /decimal/i.test(r.description))) continue
    const amount = value.includes('.') ? `${value}0` : `${value}.00`
    return `An amount is text with exactly two decimals; -F makes JSON of integers only, so ${value} went as ${JSON.stringify(f.value)}: send -f '${f.key}=${amount}'`
  }

  return undefined
}
