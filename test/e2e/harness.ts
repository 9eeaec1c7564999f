/**
 * Process harness, for tests where a process is the point (exit codes of the real binary,
 * signals, the manifest, the sandbox process, kill -9, the packed package): a real sandbox in a
 * child process on a free loopback port, and the built CLI (`bin/run.js` over `dist/`) run as real
 * processes with a temporary config folder and the OPSCTL_* variables pointing at that sandbox.
 * Everything else runs in-process: test/helpers/command.ts, and test/helpers/sandbox.ts for a
 * sandbox. Needs `npm run build` first (npm test does it).
 */
import {type ChildProcess, spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {createInterface} from 'node:readline'
import {stripVTControlCharacters} from 'node:util'
import {afterAll, beforeAll, inject} from 'vitest'

import {sandboxControlCall} from '../helpers/control.js'

export const ROOT = resolve(import.meta.dirname, '../..')
export const BIN = join(ROOT, 'bin/run.js')

export interface RunResult {
  code: number
  stdout: string
  stderr: string
}

export interface RunOptions {
  /** written to the process's stdin, then closed */
  input?: string
  env?: Record<string, string | undefined>
  cwd?: string
  /** kills the process after this long (a bound the test itself asserts on); otherwise the test's timeout bounds it */
  timeoutMs?: number
  /** runs the process through `sh -c 'umask <mask> && exec node ...'` */
  umask?: string
  /** an installed `opsctl` executable to run instead of this checkout's `node bin/run.js` */
  bin?: string
}

/** The command and arguments that run opsctl: this checkout's bin/run.js, or an installed executable, under a umask if asked. */
function opsctl(argv: string[], options: RunOptions): [string, string[]] {
  const [command, args] = options.bin ? [options.bin, argv] : [process.execPath, [BIN, ...argv]]
  return options.umask ? ['/bin/sh', ['-c', 'umask "$0" && exec "$@"', options.umask, command, ...args]] : [command, args]
}

/** The compile cache of every child of this run: one temporary folder, made and removed by test/global-setup.ts. */
const CACHE_DIR = inject('opsctlCacheDir')

/**
 * The environment every child starts from: no proxies, no colours, no inherited OPSCTL_* settings,
 * no CA bundle, this worker's cache folder.
 */
export function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || k.startsWith('OPSCTL_') || /^(https?_proxy|no_proxy|NODE_EXTRA_CA_CERTS|NODE_OPTIONS)$/i.test(k)) continue
    env[k] = v
  }

  return {...env, CI: 'true', NO_COLOR: '1', OPSCTL_CACHE_DIR: CACHE_DIR}
}

/** Every child still running when the test worker exits is killed: none outlives a test that timed out. */
const children = new Set<ChildProcess>()
/** Sandboxes' own config folders still on disk: removed as each sandbox exits, or with the worker. */
const sandboxDirs = new Set<string>()
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL')
  for (const dir of sandboxDirs) rmSync(dir, {force: true, recursive: true})
})

function track(child: ChildProcess): ChildProcess {
  children.add(child)
  child.once('exit', () => children.delete(child))
  return child
}

/** Runs `node bin/run.js ...argv` to completion. */
export function runCli(argv: string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const env = {...baseEnv(), ...options.env}
    for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k]
    const child = spawn(...opsctl(argv, options), {cwd: options.cwd ?? ROOT, env: env as NodeJS.ProcessEnv})
    track(child)
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), options.timeoutMs)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolvePromise({code: code ?? (signal ? 128 : 1), stdout, stderr})
    })
    // A command that exits before reading its input (a refusal, a usage error) closes the pipe: not a test failure.
    child.stdin.on('error', () => {})
    child.stdin.end(options.input ?? '')
  })
}

export interface Sandbox {
  origin: string
  healthUrl: string
  checkoutUrl: string
  publicKey: string
  secretKey: string
  /** the control token, read from the file the sandbox wrote in its config folder */
  token: string
  /** the sandbox process's config folder (a temporary one unless `env` named one), where its token file is */
  configDir: string
  process: ChildProcess
  /** Calls a `/__sandbox/...` control endpoint; returns the parsed JSON answer. */
  control(path: string, body?: unknown, method?: string): Promise<any>
  stop(signal?: NodeJS.Signals): Promise<number | null>
  /** what it wrote on stderr so far */
  stderr(): string
}

/**
 * Starts `opsctl sandbox start --port 0 --json` and waits for the line that says where it listens.
 * Its config folder (where it writes its control token file) is a temporary one, removed once it
 * stopped, unless `env` names one.
 */
export async function startSandbox(extraArgs: string[] = [], env: Record<string, string> = {}, bin?: string): Promise<Sandbox> {
  const ownConfigDir = env.OPSCTL_CONFIG_DIR ? undefined : mkdtempSync(join(tmpdir(), 'opsctl-sandbox-'))
  const configDir = env.OPSCTL_CONFIG_DIR ?? ownConfigDir!
  const child = spawn(...opsctl(['sandbox', 'start', '--port', '0', '--json', ...extraArgs], {bin}), {
    cwd: ROOT,
    env: {...baseEnv(), OPSCTL_CONFIG_DIR: configDir, ...env},
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  track(child)
  if (ownConfigDir) {
    sandboxDirs.add(ownConfigDir)
    child.once('exit', () => {
      rmSync(ownConfigDir, {force: true, recursive: true})
      sandboxDirs.delete(ownConfigDir)
    })
  }

  let stderr = ''
  child.stderr!.on('data', (d) => (stderr += d))
  const lines = createInterface({input: child.stdout!})
  // Bounded by the hook's or test's timeout; the exit handler above kills a sandbox that never answered.
  const info = await new Promise<any>((resolvePromise, reject) => {
    child.on('exit', (code) => reject(new Error(`sandbox exited with ${code}: ${stderr}`)))
    lines.once('line', (line) => {
      try {
        resolvePromise(JSON.parse(line))
      } catch {
        reject(new Error(`unexpected sandbox output: ${line}`))
      }
    })
  })
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)))
  const token = (JSON.parse(readFileSync(info.controlTokenFile, 'utf8')) as {token: string}).token
  return {
    origin: info.origin,
    healthUrl: info.health.baseUrl,
    checkoutUrl: info.checkout.baseUrl,
    publicKey: info.checkout.publicKey,
    secretKey: info.checkout.secretKey,
    token,
    configDir,
    process: child,
    async control(path: string, body?: unknown, method?: string) {
      return sandboxControlCall({origin: info.origin, token}, path, body, method)
    },
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return exited
    },
    stderr: () => stderr,
  }
}

export interface Cli {
  configDir: string
  env: Record<string, string>
  run(argv: string[], options?: RunOptions): Promise<RunResult>
  /** Runs with --json, expects exit 0, returns the parsed stdout. */
  json<T = any>(argv: string[], options?: RunOptions): Promise<T>
  cleanup(): void
}

/**
 * A CLI user of its own (fresh config folder) pointed at the sandbox through the OPSCTL_* variables,
 * the control token included (as a user of a shared sandbox passes it) when the sandbox has one.
 */
export function cliFor(sandbox: Pick<Sandbox, 'checkoutUrl' | 'healthUrl'> & {token?: string}): Cli {
  const configDir = mkdtempSync(join(tmpdir(), 'opsctl-e2e-'))
  const env: Record<string, string> = {OPSCTL_CONFIG_DIR: configDir, OPSCTL_HEALTH_URL: sandbox.healthUrl, OPSCTL_CHECKOUT_URL: sandbox.checkoutUrl}
  // the token with the origin it is for, as a job given a shared sandbox's token is
  if (sandbox.token) Object.assign(env, {OPSCTL_SANDBOX_TOKEN: sandbox.token, OPSCTL_SANDBOX_URL: new URL(sandbox.healthUrl).origin})
  const run = (argv: string[], options: RunOptions = {}) => runCli(argv, {...options, env: {...env, ...options.env}})
  return {
    configDir,
    env,
    run,
    async json(argv, options) {
      const result = await run([...argv, '--json'], options)
      if (result.code !== 0) throw new Error(`opsctl ${argv.join(' ')} exited ${result.code}: ${result.stderr}`)
      return JSON.parse(result.stdout)
    },
    cleanup() {
      rmSync(configDir, {force: true, recursive: true})
    },
  }
}

/**
 * One sandbox process, and one CLI user of it, for a whole test file where real processes are the
 * point (a terminal, a shell script): started before the first test, stopped after the last.
 */
export function sandboxForFile(extraArgs: string[], use: (sandbox: Sandbox, cli: Cli) => void): void {
  let started: Sandbox | undefined
  let user: Cli | undefined
  beforeAll(async () => {
    started = await startSandbox(extraArgs)
    user = cliFor(started)
    use(started, user)
  })
  afterAll(async () => {
    await started?.stop()
    user?.cleanup()
  })
}

/** Typed into the terminal once the output (escape codes removed) shows `when`. */
export interface TerminalAnswer {
  when: string
  send: string
}

/**
 * Runs opsctl in a pseudo-terminal (`script -qec`), as a person at a terminal would: stdin and
 * stderr are TTYs, CI is unset, and each answer is typed once its prompt has appeared (no timed
 * guesses). Returns the exit code and everything the terminal showed (stdout and stderr mixed,
 * escape codes removed); `stderr` is empty.
 */
export function runInTerminal(
  argv: string[],
  answers: TerminalAnswer[],
  options: Pick<RunOptions, 'env' | 'timeoutMs'> & {cols?: number} = {},
): Promise<RunResult> {
  const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`
  const [command, args] = opsctl(argv, {})
  // A wide terminal by default, so that a long prompt is not wrapped across lines.
  const line = `stty cols ${options.cols ?? 300} rows 40; exec ${[command, ...args].map(quote).join(' ')}`
  const env: Record<string, string | undefined> = {...baseEnv(), ...options.env, CI: undefined}
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k]
  return new Promise((resolvePromise, reject) => {
    const child = spawn('script', ['-qec', line, '/dev/null'], {cwd: ROOT, env: env as NodeJS.ProcessEnv})
    const pending = [...answers]
    let shown = ''
    // Where the search for the next prompt starts: after the one last answered.
    let from = 0
    child.stdout.on('data', (d) => {
      shown += stripVTControlCharacters(String(d))
      let at: number
      while (pending.length > 0 && (at = shown.indexOf(pending[0].when, from)) !== -1) {
        from = at + pending[0].when.length
        child.stdin.write(pending.shift()!.send)
      }
    })
    const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), options.timeoutMs)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolvePromise({code: code ?? (signal ? 128 : 1), stdout: shown.replaceAll('\r', ''), stderr: ''})
    })
  })
}
