/**
 * Runs one opsctl command line inside this process, as a child process with piped stdio would run
 * it: its own argv, stdout and stderr captured (through the secret guard, as a real process prints
 * them), an empty stdin and no terminal (so nothing prompts), and the exit code the process would
 * have ended with. Everything it replaces is put back afterwards, also when the command throws.
 *
 * The command line goes through oclif's own `run` (version, help, topics, hooks) with a Config
 * loaded once by the caller; the exit code is what BaseCommand.catch set (the one error-to-exit-code
 * mapping, src/errors.ts), or, for an error that escapes a command, what oclif's `handle` would exit
 * with. A `process.exit(code)` during the run (a hook, a closed pipe) ends the run with that code.
 */
import {type Config, handle, run} from '@oclif/core'
import {Readable} from 'node:stream'

import {guardOutputStreams} from '../http/secrets/streams.js'

export interface InProcessResult {
  code: number
  stdout: string
  stderr: string
  /** the command had not finished after `timeoutMs`: it is left to finish unobserved, and its outcome is unknown */
  timedOut?: true
}

export interface InProcessOptions {
  /** Set in process.env for this run only (`undefined` removes a variable). */
  env?: Record<string, string | undefined>
  /** What the command reads on stdin; empty by default, as from a closed pipe. */
  stdin?: string
  /** Stop waiting after this long: the streams and the rest are given back at once. */
  timeoutMs?: number
}

type Write = NodeJS.WriteStream['write']

export async function runInProcess(config: Config, argv: string[], options: InProcessOptions = {}): Promise<InProcessResult> {
  const stdout: Buffer[] = []
  const stderr: Buffer[] = []
  let exitRequested: number | undefined
  const restore = [
    saveExitCode(),
    saveEnv(options.env ?? {}),
    replaceWrite(process.stdout, stdout, () => exitRequested !== undefined),
    replaceWrite(process.stderr, stderr, () => exitRequested !== undefined),
    withoutTerminal(process.stdout),
    withoutTerminal(process.stderr),
    replaceStdin(options.stdin ?? ''),
    replaceExit((code) => {
      exitRequested ??= code
    }),
    keepCommandIds(config),
  ]
  let restored = false
  const restoreAll = () => {
    if (restored) return
    restored = true
    for (const undo of restore.reverse()) undo()
  }

  const result = () => ({code: exitRequested ?? Number(process.exitCode ?? 0), stderr: text(stderr), stdout: text(stdout)})
  const work = (async () => {
    // Captured text is scrubbed of known secrets, like everything a real opsctl process prints.
    guardOutputStreams()
    try {
      await run(argv, config)
    } catch (error) {
      // What bin/run.js does with an error no command caught: oclif prints it and exits (here: records the code).
      await handle(error as Error)
    }

    return result()
  })()
  let timer: NodeJS.Timeout | undefined
  try {
    if (options.timeoutMs === undefined) return await work
    const late = new Promise<InProcessResult>((resolve) => {
      timer = setTimeout(() => resolve({...result(), code: 124, timedOut: true}), options.timeoutMs)
    })
    return await Promise.race([work, late])
  } finally {
    clearTimeout(timer)
    restoreAll()
  }
}

function text(chunks: Buffer[]): string {
  return Buffer.concat(chunks).toString('utf8')
}

/**
 * oclif's help writes the display form of ids ("checkout get") into the loaded command objects, as
 * a process that ends after help can afford to; the next command line would then not be found.
 */
function keepCommandIds(config: Config): () => void {
  const commands = new Set([...config.commands, ...config.getPluginsList().flatMap((p) => p.commands)])
  const saved = [...commands].map((c) => ({aliases: c.aliases, command: c, id: c.id}))
  return () => {
    for (const {aliases, command, id} of saved) Object.assign(command, {aliases, id})
  }
}

function saveExitCode(): () => void {
  const saved = process.exitCode
  process.exitCode = undefined
  return () => {
    process.exitCode = saved
  }
}

/** The environment as it was, whatever the command set or removed; `overlay` applies during the run. */
function saveEnv(overlay: Record<string, string | undefined>): () => void {
  const saved = {...process.env}
  for (const [key, value] of Object.entries(overlay)) {
    if (value === undefined) delete process.env[key]
    else process.env[key] = value
  }

  return () => {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key]
    Object.assign(process.env, saved)
  }
}

/** Collects what is written to `stream`; nothing after an exit was requested (a real process would be gone). */
function replaceWrite(stream: NodeJS.WriteStream, sink: Buffer[], exited: () => boolean): () => void {
  const saved = stream.write
  stream.write = function (chunk: Uint8Array | string, encodingOrCallback?: unknown, callback?: unknown): boolean {
    const encoding = typeof encodingOrCallback === 'string' ? (encodingOrCallback as NodeJS.BufferEncoding) : 'utf8'
    if (!exited()) sink.push(typeof chunk === 'string' ? Buffer.from(chunk, encoding) : Buffer.from(chunk))
    const done = typeof encodingOrCallback === 'function' ? encodingOrCallback : callback
    if (typeof done === 'function') queueMicrotask(() => done())
    return true
  } as Write
  return () => {
    stream.write = saved
  }
}

/** A piped stream is not a terminal: no prompts, no terminal width, plain output. */
function withoutTerminal(stream: NodeJS.WriteStream): () => void {
  return shadow(stream, {columns: undefined, isTTY: false})
}

function replaceStdin(text: string): () => void {
  const saved = Object.getOwnPropertyDescriptor(process, 'stdin')
  const stdin = Readable.from(text ? [Buffer.from(text)] : [])
  Object.defineProperty(process, 'stdin', {configurable: true, enumerable: true, get: () => stdin})
  return () => {
    if (saved) Object.defineProperty(process, 'stdin', saved)
    stdin.destroy()
  }
}

function replaceExit(onExit: (code: number) => void): () => void {
  const saved = process.exit
  process.exit = ((code?: number | string | null) => {
    onExit(Number(code ?? process.exitCode ?? 0))
  }) as typeof process.exit
  return () => {
    process.exit = saved
  }
}

/** Own properties that hide `values` on `target` until the returned function puts the old ones back. */
function shadow(target: object, values: Record<string, unknown>): () => void {
  const saved = Object.keys(values).map((key) => [key, Object.getOwnPropertyDescriptor(target, key)] as const)
  for (const [key, value] of Object.entries(values)) Object.defineProperty(target, key, {configurable: true, value, writable: true})
  return () => {
    for (const [key, descriptor] of saved) {
      if (descriptor) Object.defineProperty(target, key, descriptor)
      else delete (target as Record<string, unknown>)[key]
    }
  }
}
