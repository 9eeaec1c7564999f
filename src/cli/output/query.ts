/**
 * `--query`: a JMESPath expression (as in the AWS CLI) applied to a command's JSON document before
 * it is rendered in any format. The library is loaded only when a query is given.
 *
 * A query is an input like any other, and a short one can ask for a lot: `pad_right('a',
 * \`1000000000\`)` or `replace('a', 'a', 'b', \`1000000000\`)` would abort the process for lack of
 * memory, and some expressions run for minutes. So the functions that build text are replaced by
 * ones that refuse a result over a size, the whole evaluation has a time limit (V8 interrupts a
 * `vm` script that runs out of time, even inside the library's own code) and the result a size
 * limit. An expression that exceeds a limit whatever the document is refused while argv is read
 * (exit 2, nothing sent); one that exceeds it on the command's document fails after the command
 * ran (exit 1).
 */
import type {JSONValue} from '@jmespath-community/jmespath'

import {createContext, Script} from 'node:vm'

import {ExitCode, OpsError} from '../../errors.js'

/** How long one evaluation may take. */
export const QUERY_TIME_LIMIT_MS = 5000
/** The longest text one function (pad_left, pad_right, replace) may build. */
export const QUERY_MAX_BUILT_CHARS = 1024 * 1024
/** How much larger than its document, as JSON, a query's result may be. */
export const QUERY_MAX_GROWTH_CHARS = 64 * 1024 * 1024

class QueryLimitError extends Error {}

const HINT = 'Ask for less: a narrower expression, or --json and a tool of your own'

function tooLarge(what: string): never {
  throw new QueryLimitError(`${what} would build more than ${QUERY_MAX_BUILT_CHARS} characters`)
}

type Library = typeof import('@jmespath-community/jmespath')

let loaded: Promise<Library> | undefined

/** The library, with its text-building functions replaced by bounded ones (once per process). */
function library(): Promise<Library> {
  loaded ??= import('@jmespath-community/jmespath').then((jmespath) => {
    const {registerFunction, TYPE_NUMBER, TYPE_STRING} = jmespath
    const padSignature = [{types: [TYPE_STRING]}, {types: [TYPE_NUMBER]}, {optional: true, types: [TYPE_STRING]}]
    const pad =
      (name: string, side: 'end' | 'start') =>
      ([subject, width, padding = ' ']: unknown[]): JSONValue => {
        if (typeof width !== 'number' || !Number.isInteger(width) || width < 0) throw new Error('invalid-value: expecting a non-negative integer.')
        if (typeof padding !== 'string' || padding.length > 1) {
          throw new Error(`invalid value, ${name} expects its 'pad' parameter to be a valid string with a single codepoint`)
        }

        if (width > QUERY_MAX_BUILT_CHARS) tooLarge(`${name} to ${width}`)
        const text = subject as string
        return side === 'end' ? text.padEnd(width, padding || ' ') : text.padStart(width, padding || ' ')
      }

    registerFunction('pad_left', pad('pad_left', 'start'), padSignature, {override: true})
    registerFunction('pad_right', pad('pad_right', 'end'), padSignature, {override: true})
    registerFunction('replace', boundedReplace, [{types: [TYPE_STRING]}, {types: [TYPE_STRING]}, {types: [TYPE_STRING]}, {optional: true, types: [TYPE_NUMBER]}], {
      override: true,
    })
    return jmespath
  })
  return loaded
}

/** `replace(subject, old, new, count?)`: the first `count` occurrences (all without it), never more text than the limit. */
function boundedReplace([subject, old, by, count]: unknown[]): JSONValue {
  const text = subject as string
  if (count === 0) return text
  if (count !== undefined && (typeof count !== 'number' || !Number.isInteger(count) || count < 0)) {
    throw new Error('invalid-value: expecting a non-negative integer.')
  }

  const parts = text.split(old as string)
  const replaced = Math.min(parts.length - 1, (count as number | undefined) ?? Number.POSITIVE_INFINITY)
  const length = text.length + replaced * ((by as string).length - (old as string).length)
  if (length > Math.max(text.length, QUERY_MAX_BUILT_CHARS)) tooLarge('replace')
  return parts.slice(0, replaced + 1).join(by as string) + (replaced + 1 < parts.length ? old + parts.slice(replaced + 1).join(old as string) : '')
}

const context = createContext(Object.create(null))
const EVALUATE = new Script('((result) => [result, JSON.stringify(result)?.length ?? 0])(search(data, expression))')

/**
 * Runs the query under the time limit, and measures its result as JSON within the same limit: a
 * result that repeats its document many times over would otherwise stall the renderer. A limit
 * reached is a QueryLimitError that says which.
 */
function evaluate(search: Library['search'], data: JSONValue, expression: string, maxChars: number): unknown {
  Object.assign(context, {data, expression, search})
  try {
    const [result, chars] = EVALUATE.runInContext(context, {timeout: QUERY_TIME_LIMIT_MS}) as [unknown, number]
    if (chars > maxChars) throw new QueryLimitError(`its result would be ${chars} characters of JSON`)
    return result
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
      throw new QueryLimitError(`stopped: it did not finish within ${QUERY_TIME_LIMIT_MS / 1000} s`)
    }

    if (error instanceof QueryLimitError) throw new QueryLimitError(`stopped: ${error.message}`)
    // V8's own limit on the length of a string, reached while building one
    if (error instanceof RangeError) throw new QueryLimitError(`stopped: it would build more text than this process can hold`)
    throw error
  } finally {
    Object.assign(context, {data: undefined, expression: undefined, search: undefined})
  }
}

/**
 * Throws the parser's message for a bad expression (the flag's parse step: exit 2, nothing sent).
 * The expression is also tried on an empty document, so that one that is too large or too slow
 * whatever the answer (`pad_right('a', \`1000000000\`)`) is refused before anything is sent.
 */
export async function checkQuery(expression: string): Promise<string> {
  const {compile, search} = await library()
  // oclif's message for a flag that fails to parse already starts with "--query: ".
  compile(expression)
  try {
    evaluate(search, null, expression, QUERY_MAX_GROWTH_CHARS)
  } catch (error) {
    // A plain error: oclif turns it into a usage error about the flag (exit 2, nothing sent).
    if (error instanceof QueryLimitError) throw new Error(error.message)
    // Any other error (a function given null, say) depends on the document: the real run reports it.
  }

  return expression
}

/**
 * The query on the command's document. The command has run by now (its requests were sent), so a
 * failure here is exit 1, never 2: 2 says nothing was sent, and a script that read it so could
 * repeat a change.
 */
export async function applyQuery(document: unknown, expression: string): Promise<unknown> {
  const {search} = await library()
  // A round trip through JSON gives the library plain JSON values (no undefined, no class instances):
  // structuredClone would keep both.
  const json = JSON.stringify(document ?? null)
  try {
    return evaluate(search, JSON.parse(json) as JSONValue, expression, json.length + QUERY_MAX_GROWTH_CHARS)
  } catch (error) {
    const why = error instanceof QueryLimitError ? error.message : (error as Error).message
    throw new OpsError(`--query: ${why}; the command itself ran, only its output could not be shown`, ExitCode.Unexpected, [HINT])
  }
}

/** `{"checkouts": [...], "path": "..."}`: the document's top-level keys and the kind of each value. */
function outline(document: unknown): string {
  if (Array.isArray(document)) return '[...]'
  if (document === null || typeof document !== 'object') return JSON.stringify(document) ?? 'null'
  const kind = (value: unknown) => (Array.isArray(value) ? '[...]' : value !== null && typeof value === 'object' ? '{...}' : JSON.stringify(value))
  const keys = Object.entries(document)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${JSON.stringify(key)}: ${kind(value)}`)
  return `{${keys.join(', ')}}`
}

/** The expression moved into the document's one list, when it has exactly one: `[].id` -> `checkouts[].id`. */
function guess(document: unknown, expression: string): string | undefined {
  if (document === null || typeof document !== 'object' || Array.isArray(document)) return undefined
  const lists = Object.keys(document).filter((key) => Array.isArray((document as Record<string, unknown>)[key]))
  if (lists.length !== 1 || expression.startsWith(lists[0])) return undefined
  const trimmed = expression.trim()
  if (trimmed.startsWith('[')) return `${lists[0]}${trimmed}`
  if (/^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$/.test(trimmed)) return `${lists[0]}[].${trimmed}`
  return undefined
}

/**
 * One line for stderr when a query found nothing (null, or an empty list, object or text): the
 * command succeeded, so the exit code stays 0, but a silent `null` reads as an answer. It names the
 * document's top-level keys and, when it can, the expression that was likely meant.
 */
export function emptyResultWarning(document: unknown, expression: string, result: unknown): string | undefined {
  const empty =
    result === null ||
    result === undefined ||
    result === '' ||
    (Array.isArray(result) && result.length === 0) ||
    (typeof result === 'object' && Object.keys(result).length === 0)
  if (!empty) return undefined
  const meant = guess(document, expression)
  return `Warning: --query found nothing (${JSON.stringify(result ?? null)}): the document is ${outline(document ?? null)}${meant ? `; did you mean ${meant}?` : ''}`
}
