/**
 * The lines of a file or of standard input, read as they arrive: never the whole input in memory,
 * and never one unbounded line (a file with no line break at all would otherwise be held whole).
 */
import {StringDecoder} from 'node:string_decoder'

import {UsageError} from '../../errors.js'

export interface LineLimits {
  /** Characters in one line, its line break excluded. */
  maxLineLength: number
  /** Lines in the input, blank lines included. */
  maxLines: number
}

export interface Line {
  /** 1-based, as an editor shows it. */
  number: number
  text: string
}

/**
 * Lines of UTF-8 text (a leading byte-order mark dropped; `\r\n` and `\n` both end a line).
 * @yields each line with its number
 */
export async function* readLines(input: AsyncIterable<Buffer | string>, source: string, limits: LineLimits): AsyncGenerator<Line> {
  const decoder = new StringDecoder('utf8')
  let pending = ''
  let number = 0
  const take = (text: string): Line => {
    number++
    if (number > limits.maxLines) throw new UsageError(`${source} has more than ${limits.maxLines} lines; split it into several files. Nothing was sent`)
    if (number === 1 && text.startsWith('\uFEFF')) text = text.slice(1)
    return {number, text: text.endsWith('\r') ? text.slice(0, -1) : text}
  }

  const tooLong = () => new UsageError(`${source}: line ${number + 1} is longer than ${limits.maxLineLength} characters; nothing was sent`)
  for await (const chunk of input) {
    pending += typeof chunk === 'string' ? chunk : decoder.write(chunk)
    let start = 0
    let end: number
    while ((end = pending.indexOf('\n', start)) !== -1) {
      if (end - start > limits.maxLineLength + 1) throw tooLong()
      yield take(pending.slice(start, end))
      start = end + 1
    }

    pending = pending.slice(start)
    if (pending.length > limits.maxLineLength + 1) throw tooLong()
  }

  pending += decoder.end()
  if (pending !== '') yield take(pending)
}
