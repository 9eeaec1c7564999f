/**
 * The one way opsctl reads a file or stdin it was pointed at (`--data @file`, `--input`, `-F
 * x=@file`, `@-`, `sandbox import`, secrets on stdin): as a stream, counting bytes as they
 * arrive, so a FIFO, `/dev/zero` or an endless pipe stops at the limit instead of filling memory
 * (a file's size is not looked at: a FIFO has none). Where text is expected, a NUL byte or bytes
 * that are not UTF-8 are refused: binary is never sent mangled into text. Every refusal is a
 * usage error (exit 2): nothing was sent.
 */
// fs.promises loads on first use: importing node:fs/promises would cost every command its load (readline, file watchers)
import {promises as fs} from 'node:fs'

import {MIB, sizeText, UsageError} from '../errors.js'

/**
 * What a request body read from a file or stdin may weigh: no request of either service comes
 * near it (the largest is a checkout with its items, a few KiB).
 */
export const INPUT_LIMIT_BYTES = 16 * MIB

/** What a stream of bytes is held to as it passes, and how each refusal is worded by its reader. */
export interface ByteChecks {
  /** The most bytes; one more is `tooLarge()`. */
  limit: number
  tooLarge(): Error
  /**
   * Where text is expected: a NUL byte (`nulAt`: its offset from 0) or bytes that are not UTF-8
   * (`nearByte`: the offset of the chunk they are in; absent when the input ends inside a character).
   */
  notText?(problem: {nulAt: number} | {nearByte?: number}): Error
}

/**
 * The chunks of `input`, unchanged, each counted and (with `notText`) checked as it passes, so an
 * endless or binary input is refused at its first chunk too many, never after it was held whole.
 * @yields each chunk
 */
export async function* checkedChunks(input: AsyncIterable<Buffer | string>, checks: ByteChecks): AsyncGenerator<Buffer> {
  const decoder = checks.notText ? new TextDecoder('utf-8', {fatal: true}) : undefined
  let read = 0
  for await (const piece of input) {
    // Strings once something has called setEncoding() on stdin.
    const chunk = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece
    if (read + chunk.length > checks.limit) throw checks.tooLarge()
    if (decoder) {
      const nul = chunk.indexOf(0)
      if (nul !== -1) throw checks.notText!({nulAt: read + nul})
      try {
        decoder.decode(chunk, {stream: true})
      } catch {
        throw checks.notText!({nearByte: read})
      }
    }

    read += chunk.length
    yield chunk
  }

  try {
    decoder?.decode()
  } catch {
    throw checks.notText!({})
  }
}

export interface BoundedReadOptions {
  /** The most bytes read; one more is an error. */
  limit: number
  /** How errors name the input (`-F photo=@x.bin`, `stdin`); the path when not given. */
  name?: string
  /** Refuse NUL bytes and what is not UTF-8. */
  text?: boolean
}

/** `path`'s bytes, or stdin's for `-`, read up to `limit`. */
export async function readBounded(path: string, options: BoundedReadOptions): Promise<Buffer> {
  const name = options.name ?? (path === '-' ? 'stdin' : path)
  const tooLarge = () => new UsageError(`${name} is larger than ${sizeText(options.limit)}, the most opsctl reads from it; nothing was sent`)
  const failed = (error: unknown) => new UsageError(`Cannot read ${name}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  let stream: AsyncIterable<Buffer | string> & {destroy(): void}
  if (path === '-') {
    if (process.stdin.isTTY) throw new UsageError('Expected input on stdin, but stdin is a terminal; pipe it in')
    stream = process.stdin
  } else {
    const handle = await fs.open(path).catch((error: unknown) => {
      throw failed(error)
    })
    // A regular file too large is refused before a byte is read; anything else (a FIFO, a device) is counted as it streams.
    const stat = await handle.stat().catch(async (error: unknown) => {
      await handle.close()
      throw failed(error)
    })
    if (stat.isFile() && stat.size > options.limit) {
      await handle.close()
      throw tooLarge()
    }

    stream = handle.createReadStream()
  }

  const chunks: Buffer[] = []
  const notText = (problem: {nulAt: number} | {nearByte?: number}) =>
    new UsageError(
      `${name} is not text (it holds ${'nulAt' in problem ? `a NUL byte at byte ${problem.nulAt}` : 'bytes that are not UTF-8'}): binary data cannot be sent as JSON text; nothing was sent`,
    )
  try {
    for await (const chunk of checkedChunks(stream, {limit: options.limit, notText: options.text ? notText : undefined, tooLarge})) chunks.push(chunk)
  } catch (error) {
    throw error instanceof UsageError ? error : failed(error)
  } finally {
    // Ends a FIFO's or /dev/zero's read at once; stdin is left to the process (a destroyed stdin cannot be read again).
    if (path !== '-') stream.destroy()
  }

  return Buffer.concat(chunks)
}

/** `path`'s text (stdin's for `-`), read up to `limit`; NUL bytes and what is not UTF-8 refused. */
export async function readBoundedText(path: string, options: Omit<BoundedReadOptions, 'text'>): Promise<string> {
  return (await readBounded(path, {...options, text: true})).toString('utf8')
}
