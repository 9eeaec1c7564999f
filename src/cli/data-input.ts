import {UsageError} from '../errors.js'

/**
 * Reads `--data`: `@file.json`, `-` for stdin, or inline JSON. Invalid JSON, JSON nested deeper
 * than MAX_DATA_DEPTH, and a file or stdin over 16 MiB or not text, are usage errors (exit 2,
 * nothing sent).
 */
export async function readJsonData(spec: string): Promise<unknown> {
  let text: string
  let source: string
  if (spec === '-') {
    text = await readTextFile('-')
    source = 'stdin'
  } else if (spec.startsWith('@')) {
    source = spec.slice(1)
    text = await readTextFile(source)
  } else {
    text = spec
    source = '--data'
  }

  const depth = nestingDepth(text)
  if (depth > MAX_DATA_DEPTH) {
    throw new UsageError(`${source} is nested ${depth} levels deep; at most ${MAX_DATA_DEPTH} levels of arrays and objects are accepted`)
  }

  try {
    return JSON.parse(text)
  } catch (error) {
    throw new UsageError(`${source} is not valid JSON: ${(error as Error).message}`)
  }
}

/**
 * A file named on the command line (or stdin, `-`), as text, read up to 16 MiB as it streams in: one
 * that cannot be read, is larger, or is not text (a NUL byte, not UTF-8) is a usage error naming it.
 */
export async function readTextFile(path: string): Promise<string> {
  // Loaded when a body is read from a file: `api` without one loads less at start-up.
  const {INPUT_LIMIT_BYTES, readBoundedText} = await import('../runtime/bounded-read.js')
  return readBoundedText(path, {limit: INPUT_LIMIT_BYTES})
}

/**
 * How deep `--data` may nest arrays and objects. No request body of either service comes near it;
 * the limit is there because validating, printing and sending a body each walk it recursively, and
 * a 10,000-deep array overflowed the stack (an "Unexpected error", exit 1) instead of a usage error.
 */
export const MAX_DATA_DEPTH = 64

/**
 * The deepest nesting of `[` and `{` in a JSON text, brackets inside strings not counted. A plain
 * scan of the text, so it cannot itself run out of stack, and runs before anything parses it.
 */
export function nestingDepth(text: string): number {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (inString) {
      if (c === '\\') i++
      else if (c === '"') inString = false
      continue
    }

    switch (c) {
      case '"': {
        inString = true
        break
      }

      case '[':
      case '{': {
        depth++
        deepest = Math.max(deepest, depth)
        break
      }

      case ']':
      case '}': {
        depth--
        break
      }
    }
  }

  return deepest
}

/**
 * Parses repeated `k=v` pairs; a key given twice becomes an array. The keys are the user's, so the
 * result has no prototype: `__proto__=x` is a key like any other.
 */
export function parsePairs(pairs: string[] | undefined, flag: string, separator = '='): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null)
  for (const pair of pairs ?? []) {
    const i = pair.indexOf(separator)
    if (i <= 0) throw new UsageError(`${flag} expects key${separator}value, got "${pair}"`)
    const key = pair.slice(0, i).trim()
    const value = pair.slice(i + 1).trim()
    const prev = out[key]
    out[key] = prev === undefined ? value : [...(Array.isArray(prev) ? prev : [prev]), value]
  }

  return out
}
