/**
 * Wraps process.stdout.write and process.stderr.write once, so that everything the process prints
 * (command output, errors, traces, oclif's own DEBUG output, an unexpected crash) goes through the
 * secret registry's scrubber. With nothing registered a write goes straight through.
 */
import {inspect} from 'node:util'

import {hasSecrets, scrub} from './registry.js'

const GUARDED = Symbol.for('opsctl.secrets.guarded')

type Write = NodeJS.WriteStream['write'] & {[GUARDED]?: true}

export function guardOutputStreams(): void {
  guard(process.stdout)
  guard(process.stderr)
}

/**
 * Node prints an uncaught exception (or unhandled rejection) itself, straight to file descriptor 2,
 * past the guard. This prints it through the guard instead, and exits 1 as Node would.
 */
export function guardFatalErrors(): void {
  process.on('uncaughtException', (error) => {
    process.stderr.write(`${inspect(error)}\n`)
    process.exit(1)
  })
}

/** Idempotent: a write function that is already a guard is left alone (BaseCommand.init calls this for every command). */
function guard(stream: NodeJS.WriteStream): void {
  const inner = stream.write as Write
  if (inner[GUARDED]) return
  const call = (...args: unknown[]) => (inner as (...a: unknown[]) => boolean).apply(stream, args)
  const write = function (this: unknown, chunk: unknown, encodingOrCallback?: unknown, callback?: unknown): boolean {
    if (hasSecrets()) {
      const text = textOf(chunk, encodingOrCallback)
      if (text !== undefined) {
        const clean = scrub(text)
        if (clean !== text) return call(clean, 'utf8', typeof encodingOrCallback === 'function' ? encodingOrCallback : callback)
      }
    }

    return call(chunk, encodingOrCallback, callback)
  } as Write
  write[GUARDED] = true
  stream.write = write
}

/** A chunk as text; undefined for a string in another encoding (base64, hex), which is not text to scrub. */
function textOf(chunk: unknown, encoding: unknown): string | undefined {
  if (typeof chunk === 'string') return typeof encoding !== 'string' || /^utf-?8$/i.test(encoding) ? chunk : undefined
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8')
  return undefined
}
