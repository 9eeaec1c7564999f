/**
 * The one command-test harness: runs a command class in this process the way oclif would
 * (`Cmd.run(argv, config)`), with its own temporary config folder, stdout/stderr captured, stdin
 * replaced, the exit code it set, and undici's MockAgent in place of the network (no network at
 * all; every request recorded).
 */
import {Config} from '@oclif/core'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {Readable} from 'node:stream'
import {MockAgent} from 'undici'
import {afterEach, beforeEach, vi} from 'vitest'

import type {Carrier} from '../../src/http/exchange.js'

import {setCarrier} from '../../src/http/connections.js'
import {forgetSecrets} from '../../src/http/secrets/registry.js'
import {sendOn} from '../../src/http/undici-carrier.js'
import {ProfileStore} from '../../src/profiles/store.js'

export const ROOT = resolve(import.meta.dirname, '../..')
/** The fake loopback origin the built-in sandbox profile points at. */
export const ORIGIN = 'http://127.0.0.1:4010'

let config: Config | undefined

export async function loadConfig(): Promise<Config> {
  config ??= await Config.load({root: ROOT})
  return config
}

export interface CommandResult {
  code: number
  stdout: string
  stderr: string
  result: unknown
}

export interface Runnable {
  run(argv: string[], config: Config): Promise<unknown>
}

/** A temporary OPSCTL_CONFIG_DIR, and no OPSCTL_* setting inherited from the outside. */
export function isolate(): {dir: string; cleanup(): void} {
  const saved = {...process.env}
  for (const k of Object.keys(process.env)) if (k.startsWith('OPSCTL_')) delete process.env[k]
  const dir = mkdtempSync(join(tmpdir(), 'opsctl-cmd-'))
  process.env.OPSCTL_CONFIG_DIR = dir
  process.env.CI = 'true'
  return {
    dir,
    cleanup() {
      process.env = saved
      rmSync(dir, {force: true, recursive: true})
    },
  }
}

/** For a whole test file: a fresh `mockServices()` before each test, closed after it. */
export function mockedServicesPerTest(): {readonly agent: MockAgent; readonly services: MockedServices} {
  let services: MockedServices | undefined
  beforeEach(() => {
    services = mockServices()
  })
  afterEach(async () => {
    await services?.close()
  })
  return {
    get agent() {
      return (services as MockedServices).agent
    },
    get services() {
      return services as MockedServices
    },
  }
}

/**
 * For a whole test file: before each test a fresh `isolate()` and `mockServices()`, closed and
 * removed after it. Read `env` and `services` inside the tests (they change with each one).
 */
export function isolatedWithMockedServices(): {readonly env: ReturnType<typeof isolate>; readonly services: MockedServices} {
  let env: ReturnType<typeof isolate> | undefined
  beforeEach(() => {
    env = isolate()
  })
  const mocked = mockedServicesPerTest()
  afterEach(() => {
    env?.cleanup()
  })
  return {
    get env() {
      return env as ReturnType<typeof isolate>
    },
    get services() {
      return mocked.services
    },
  }
}

export interface RunOptions {
  /** the whole of stdin, as if piped in */
  stdin?: string
  /** environment variables for this run only (`undefined` unsets one) */
  env?: Record<string, string | undefined>
  /** stdout and stderr are a terminal this many columns wide (stdin is not: no prompts) */
  terminal?: number
}

/** Makes process.stdout and process.stderr look like a terminal `columns` wide; returns the undo. */
function asTerminal(columns: number | undefined): () => void {
  if (columns === undefined) return () => {}
  const saved = [process.stdout, process.stderr].map((s) => [s, s.isTTY, s.columns] as const)
  for (const [s] of saved) Object.assign(s, {columns, isTTY: true})
  return () => {
    for (const [s, isTTY, cols] of saved) Object.assign(s, {columns: cols, isTTY})
  }
}

export async function runCommand(Cmd: Runnable, argv: string[], options: RunOptions = {}): Promise<CommandResult> {
  const cfg = await loadConfig()
  let stdout = ''
  let stderr = ''
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk)
    return true
  })
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk)
    return true
  })
  const stdin =
    options.stdin === undefined ? undefined : vi.spyOn(process, 'stdin', 'get').mockReturnValue(Readable.from([options.stdin]) as any)
  const savedEnv = Object.fromEntries(Object.keys(options.env ?? {}).map((k) => [k, process.env[k]]))
  setEnv(options.env ?? {})
  const undoTerminal = asTerminal(options.terminal)
  process.exitCode = undefined
  // As a fresh process starts: no secret known from an earlier run may hide (redact) a leak in this one.
  forgetSecrets()
  let result: unknown
  try {
    result = await Cmd.run(argv, cfg)
  } finally {
    out.mockRestore()
    err.mockRestore()
    stdin?.mockRestore()
    undoTerminal()
    setEnv(savedEnv)
  }

  // oclif warns about unparsed commands only under NODE_ENV=test (vitest); a real run never prints it
  stderr = stderr.replaceAll(/^\(node:\d+\) \[UnparsedCommand\].*\n?/gm, '').replaceAll(/^\(Use `node --trace-warnings.*\n?/gm, '')
  const code = Number(process.exitCode ?? 0)
  process.exitCode = undefined
  return {code, result, stderr, stdout}
}

function setEnv(values: Record<string, string | undefined>): void {
  for (const [k, v] of Object.entries(values)) {
    if (v === undefined) delete process.env[k]
    else process.env[k] = v
  }
}

/** `runCommand` with `--json` added: expects exit 0 and returns the parsed stdout. */
export async function runJson<T = any>(Cmd: Runnable, argv: string[], options: RunOptions = {}): Promise<T> {
  const r = await runCommand(Cmd, [...argv, '--json'], options)
  if (r.code !== 0) throw new Error(`${argv.join(' ')} exited ${r.code}: ${r.stderr}`)
  return JSON.parse(r.stdout)
}

export interface RecordedCall {
  method: string
  /** path and query, as sent */
  path: string
  /** the JSON body, parsed (the raw text when it is not JSON) */
  body: any
  headers: Record<string, any>
}

export interface MockedServices {
  agent: MockAgent
  /** every request that reached the mock, in order */
  calls(): RecordedCall[]
  close(): Promise<void>
}

/**
 * undici's MockAgent in place of the network (a carrier that sends on it): no real network, every
 * request recorded, and every rule of the transport (headers, retries, timeouts, trace, exit 7) applied.
 */
export function mockServices(): MockedServices {
  const agent = new MockAgent({enableCallHistory: true})
  agent.disableNetConnect()
  setCarrier(mockCarrier(agent))
  return {
    agent,
    calls() {
      return (agent.getCallHistory()?.calls() ?? []).map((c) => {
        const url = new URL(c.fullUrl)
        return {body: parseBody(c.body), headers: c.headers as Record<string, any>, method: c.method, path: url.pathname + url.search}
      })
    },
    async close() {
      setCarrier(undefined)
      await agent.close()
    },
  }
}

/** A carrier that sends every attempt on the mock, whatever its URL. */
export function mockCarrier(agent: MockAgent): Carrier {
  return {close: async () => {}, send: (exchange) => sendOn(agent, exchange)}
}

function parseBody(body: unknown): unknown {
  if (body === null || body === undefined || body === '') return undefined
  try {
    return JSON.parse(String(body))
  } catch {
    return String(body)
  }
}

export interface CommandHarness {
  agent: MockAgent
  /** the mock pool of the fake service origin */
  pool: ReturnType<MockAgent['get']>
  /** the temporary OPSCTL_CONFIG_DIR */
  configDir: string
  run(Cmd: Runnable, argv: string[], options?: RunOptions): Promise<CommandResult>
  /** every request that reached the mock: method, path, parsed JSON body, headers */
  calls(): RecordedCall[]
  /** profiles.json as written */
  profiles(): any
  close(): Promise<void>
}

/** An isolated config folder (plus `env`) and a MockAgent; `close()` undoes both. */
export async function commandHarness(env: Record<string, string> = {}): Promise<CommandHarness> {
  const isolated = isolate()
  Object.assign(process.env, env)
  const services = mockServices()
  return {
    agent: services.agent,
    calls: services.calls,
    async close() {
      await services.close()
      isolated.cleanup()
    },
    configDir: isolated.dir,
    pool: services.agent.get(ORIGIN),
    profiles: () => JSON.parse(readFileSync(join(isolated.dir, 'profiles.json'), 'utf8')),
    run: (Cmd, argv, options) => runCommand(Cmd, argv, options),
  }
}

type FlagValue = boolean | number | string | string[] | undefined

/**
 * argv from positionals and a flag object: `cli('chk_1', {reason: 'dup', yes: true})` ->
 * `['chk_1', '--reason', 'dup', '--yes']`. `false` and `undefined` flags are left out; an array repeats the flag.
 */
export function cli(...parts: (Record<string, FlagValue> | string)[]): string[] {
  const argv: string[] = []
  for (const part of parts) {
    if (typeof part === 'string') {
      argv.push(part)
      continue
    }

    for (const [name, value] of Object.entries(part)) {
      if (value === undefined || value === false) continue
      if (value === true) argv.push(`--${name}`)
      else for (const v of Array.isArray(value) ? value : [value]) argv.push(`--${name}`, String(v))
    }
  }

  return argv
}

/** Makes `prod`, a production profile with a secret key, the active profile of this config folder. */
export async function useProduction(configDir: string, secretKey: string): Promise<void> {
  const store = await ProfileStore.open(configDir)
  store.set('prod', {
    env: 'production',
    health: {baseUrl: 'https://health.example.com'},
    checkout: {baseUrl: 'https://pay.example.com/checkout', secretKey},
  })
  store.use('prod')
  await store.save()
}
