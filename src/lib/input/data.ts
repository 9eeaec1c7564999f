import {readFile} from 'node:fs/promises'

import {UsageError} from '../errors.js'
import {readStdin} from '../prompt/index.js'

/** Reads `--data`: `@file.json`, `-` for stdin, or inline JSON. Invalid JSON is a usage error. */
export async function readJsonData(spec: string): Promise<unknown> {
  let text: string
  let source: string
  if (spec === '-') {
    text = await readStdin()
    source = 'stdin'
  } else if (spec.startsWith('@')) {
    source = spec.slice(1)
    try {
      text = await readFile(source, 'utf8')
    } catch (error) {
      throw new UsageError(`Cannot read ${source}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
    }
  } else {
    text = spec
    source = '--data'
  }

  try {
    return JSON.parse(text)
  } catch (error) {
    throw new UsageError(`${source} is not valid JSON: ${(error as Error).message}`)
  }
}

/** Parses repeated `k=v` pairs; a key given twice becomes an array. */
export function parsePairs(pairs: string[] | undefined, flag: string, separator = '='): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
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
