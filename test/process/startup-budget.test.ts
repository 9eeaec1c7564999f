/**
 * The start-up budget of the built CLI (bin/run.js over the bundle in dist/), as real processes:
 * what `--version`, a dry run, a cheap local command and real API commands against a sandbox load.
 * A preloaded hook reports every file the process loads (ESM through a module load hook, CommonJS
 * from the require cache at exit) and every WebAssembly module it compiles. Files of the bundle are
 * mapped to the packages they hold with dist/bundle-inputs.json (written by scripts/bundle.mjs).
 *
 * The budgets below are stated, not measured: a change that makes a command load more must change
 * them here, in review. They are counts of files, which is what start-up pays for (resolution,
 * reading, compiling), plus the packages a command has no business loading.
 */
import {mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, relative} from 'node:path'
import {pathToFileURL} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {ROOT, runCli, type Sandbox, startSandbox} from '../e2e/harness.js'

/**
 * Files (bundle entries, chunks, node_modules files) each invocation may load, at most. Every
 * command but --version loads the compile cache (dist/startup/compile-cache.js) first. esbuild
 * splits a chunk per set of entries that share code, so a new entry can split shared code once
 * more: the completion commands, the control-character escaping (src/control-chars.ts, used by
 * output, errors and the HTTP trace) and the audit reader added small chunks (no measurable time:
 * `profile list --json` 148 ms median before and after the completion commands, 25 runs each, interleaved).
 * Commands importing oclif's parts (`@oclif/core/command`, `/flags`, `/args`) rather than its index
 * split oclif into a few more chunks: one more file for `api --dry-run`, and oclif's Config, its
 * plugin loader and help no longer run (10-14 ms less CPU on every command). Help's and the plain
 * commands' importing oclif's parts rather than its index split one more small chunk (2 KB). The
 * one note writer (src/cli/error-output.ts: summaries and notes broken between words at the
 * terminal's width), now imported by commands as well as the base command, is a chunk of its own
 * (1.8 KB): one more file for `api --dry-run`.
 */
const FILE_BUDGET = {version: 4, help: 31, local: 33, api: 38}
/**
 * Kilobytes of JavaScript a real API command loads, at most: Node parses every byte of a file it
 * loads, so size is start-up time (zod imported as `import {z}` instead of `import * as z` once
 * added 550 KB that esbuild could not tree-shake, about 30 ms).
 */
const API_KB_BUDGET = 1300
/** Packages never loaded by any of the invocations below (the sandbox's, prompts, config writes). */
const NEVER = ['@inquirer/prompts', 'fastify', 'better-sqlite3', 'write-file-atomic', 'proper-lockfile', 'yaml', 'asciichart', 'open', 'fast-levenshtein']
/** opsctl's own dependencies, which --version has no business loading. */
const OPSCTL_DEPENDENCIES = ['zod', 'undici', 'string-width', 'csv-stringify', '@jmespath-community/jmespath', 'string-argv', 'fast-levenshtein']

interface Loaded {
  /** Node's own modules loaded (internal ones included). */
  builtins: string[]
  /** Functions compiled from a string (`new Function`), counted with OPSCTL_TEST_COUNT_FUNCTIONS. */
  compiled: number
  /** Paths relative to the package root: dist/..., node_modules/... */
  files: string[]
  /** Every package those files hold (bundled or not). */
  packages: Set<string>
  /** Intl.Segmenter objects made. */
  segmenters: number
  /** WebAssembly modules compiled. */
  wasm: number
}

let dir: string
let hookArgs: string
let bundleInputs: Record<string, {packages: string[]}>

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'opsctl-startup-'))
  const hooks = join(dir, 'hooks.mjs')
  const preload = join(dir, 'preload.mjs')
  writeFileSync(
    hooks,
    `import {appendFileSync} from 'node:fs'
export async function load(url, context, next) {
  if (url.startsWith('file:')) appendFileSync(process.env.OPSCTL_TEST_LOADED, 'file ' + url + '\\n')
  return next(url, context)
}
`,
  )
  writeFileSync(
    preload,
    `import {appendFileSync} from 'node:fs'
import {createRequire, register} from 'node:module'
import {pathToFileURL} from 'node:url'
register(${JSON.stringify(pathToFileURL(hooks).href)})
const out = process.env.OPSCTL_TEST_LOADED
const note = (line) => appendFileSync(out, line + '\\n')
for (const name of ['compile', 'instantiate']) {
  const original = WebAssembly[name]
  WebAssembly[name] = (...args) => (note('wasm ' + name), original(...args))
}
WebAssembly.Module = new Proxy(WebAssembly.Module, {construct: (target, args) => (note('wasm Module'), Reflect.construct(target, args))})
// A grapheme segmenter loads ICU's break rules (10-14 ms of CPU): only tables of non-ASCII text need one.
Intl.Segmenter = new Proxy(Intl.Segmenter, {construct: (target, args) => (note('segmenter'), Reflect.construct(target, args))})
// Code compiled from a string at run time (EJS's templates, zod's parsers), counted when asked.
if (process.env.OPSCTL_TEST_COUNT_FUNCTIONS) {
  globalThis.Function = new Proxy(Function, {apply: (target, self, args) => (note('function'), Reflect.apply(target, self, args)), construct: (target, args) => (note('function'), Reflect.construct(target, args))})
}
process.on('exit', () => {
  for (const file of Object.keys(createRequire(import.meta.url).cache)) note('file ' + pathToFileURL(file).href)
  for (const entry of process.moduleLoadList) if (entry.startsWith('NativeModule ')) note('builtin ' + entry.slice(13))
})
`,
  )
  hookArgs = `--import ${pathToFileURL(preload).href}`
  bundleInputs = JSON.parse(readFileSync(join(ROOT, 'dist/bundle-inputs.json'), 'utf8'))
})

afterAll(() => {
  rmSync(dir, {force: true, recursive: true})
})

let runs = 0
/** Runs opsctl with the hook; what it loaded. */
async function loaded(argv: string[], env: Record<string, string> = {}): Promise<Loaded & {stderr: string; stdout: string}> {
  const report = join(dir, `loaded-${++runs}.txt`)
  writeFileSync(report, '')
  const r = await runCli(argv, {env: {NODE_OPTIONS: hookArgs, OPSCTL_CONFIG_DIR: dir, OPSCTL_TEST_LOADED: report, ...env}})
  expect(r.code, r.stderr).toBe(0)
  const lines = readFileSync(report, 'utf8').split('\n').filter(Boolean)
  const files = [...new Set(lines.filter((l) => l.startsWith('file ')).map((l) => new URL(l.slice(5)).pathname))]
    .filter((p) => p.startsWith(ROOT + '/') && !p.startsWith(dir))
    .map((p) => relative(ROOT, p))
  const packages = new Set<string>()
  for (const file of files) {
    if (file.startsWith('dist/')) for (const p of bundleInputs[file.slice(5)]?.packages ?? []) packages.add(p)
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)
    if (match) packages.add(match[1])
  }

  const builtins = lines.filter((l) => l.startsWith('builtin ')).map((l) => l.slice(8))
  const count = (line: string) => lines.filter((l) => l === line).length
  return {
    builtins,
    compiled: count('function'),
    files,
    packages,
    segmenters: count('segmenter'),
    stderr: r.stderr,
    stdout: r.stdout,
    wasm: lines.filter((l) => l.startsWith('wasm ')).length,
  }
}

const codeFiles = (l: Loaded) => l.files.filter((f) => /\.(c|m)?js$/.test(f))
const codeKb = (l: Loaded) => Math.round(codeFiles(l).reduce((sum, f) => sum + statSync(join(ROOT, f)).size, 0) / 1024)
const forbidden = (l: Loaded, names: string[]) => names.filter((n) => l.packages.has(n))

describe('start-up: --version and local commands', () => {
  it(`--version loads neither oclif nor any other dependency of opsctl: at most ${FILE_BUDGET.version} files`, async () => {
    const version = await loaded(['--version'])
    expect(version.stdout).toMatch(/^opsctl\/\d+\.\d+\.\d+ /)
    expect(codeFiles(version).length, codeFiles(version).join('\n')).toBeLessThanOrEqual(FILE_BUDGET.version)
    expect(version.files).toContain('dist/version.js')
    expect(version.files.filter((f) => f.startsWith('dist/commands/'))).toEqual([])
    expect(forbidden(version, ['@oclif/core', ...NEVER, ...OPSCTL_DEPENDENCIES])).toEqual([])
  })

  it(`profile list and api --dry-run: at most ${FILE_BUDGET.local} files, neither zod, undici, table nor prompt code`, async () => {
    await loaded(['profile', 'list', '--json'])
    const list = await loaded(['profile', 'list', '--json'])
    expect(list.files).toContain('dist/commands/profile/list.js')
    expect(codeFiles(list).length, codeFiles(list).join('\n')).toBeLessThanOrEqual(FILE_BUDGET.local)
    // oclif's parser reads a flag's value from stdin (readline) only for a flag that asks for it: none does
    expect(list.builtins).toContain('internal/modules/cjs/loader')
    expect(list.builtins).not.toContain('readline')
    // oclif's file checks of a flag or an arg, and opsctl's private files, load node:fs/promises (readline and
    // the file watchers with it) only when they are used: a command that reads and writes nothing asynchronously never does
    expect(list.builtins).not.toContain('fs/promises')
    // oclif's theme asks supports-color (node:tty) only for the colours of help and errors
    expect(list.builtins).not.toContain('tty')
    expect(forbidden(list, [...NEVER, 'zod', 'undici'])).toEqual([])

    const dry = await loaded(['api', 'checkout', 'GET', '/v1/x', '--dry-run'])
    expect(dry.stdout).toContain('curl')
    expect(codeFiles(dry).length, codeFiles(dry).join('\n')).toBeLessThanOrEqual(FILE_BUDGET.local)
    expect(forbidden(dry, [...NEVER, 'zod', 'undici'])).toEqual([])
  })

  it(`help (a command's, the root's, a topic's) compiles no template without a tag and loads at most ${FILE_BUDGET.help} files, neither zod, undici nor oclif's Config`, async () => {
    const count = {OPSCTL_TEST_COUNT_FUNCTIONS: '1'}
    for (const argv of [['checkout', 'list', '--help'], ['--help'], ['help', 'exit-codes']]) {
      await loaded(argv, count)
      const help = await loaded(argv, count)
      expect(help.stdout, argv.join(' ')).toMatch(/USAGE|EXIT CODES|exit code/i)
      // oclif's help renders each text as an EJS template, compiled with new Function (56 of them for checkout
      // list's): now only a text with a tag is (the examples' <%= config.bin %> is rendered at build). Left: EJS's
      // look-up of the global object as it loads, and oclif's `<%= command.id %>` in a command's usage line
      expect(help.compiled, argv.join(' ')).toBeLessThanOrEqual(2)
      expect(codeFiles(help).length, codeFiles(help).join('\n')).toBeLessThanOrEqual(FILE_BUDGET.help)
      expect(forbidden(help, ['zod', 'undici', 'fastify', 'better-sqlite3', '@inquirer/prompts'])).toEqual([])
      // shown from dist/help/ without oclif's Config (src/startup/help-start.ts): not through oclif's execute
      // (dist/oclif.js), which loads Config, the manifest and the plugin, nor its WSL check (an ES module), nor
      // the module loader's node:fs/promises (readline and the file watchers with it)
      expect(help.files, argv.join(' ')).not.toContain('dist/oclif.js')
      expect(forbidden(help, ['wsl-utils']), argv.join(' ')).toEqual([])
      expect(help.builtins, argv.join(' ')).not.toContain('fs/promises')
      // a topic's page needs no command start: neither the help command nor oclif's parser
      expect(help.files, argv.join(' ')).not.toContain('dist/commands/help.js')
    }
  })

  it('smoke --sandbox --dry-run starts no sandbox: neither the sandbox, fastify nor undici is loaded', async () => {
    const dry = await loaded(['smoke', '--sandbox', '--dry-run', '--json'])
    expect(dry.files).toContain('dist/commands/smoke.js')
    expect(forbidden(dry, ['fastify', 'better-sqlite3', 'undici'])).toEqual([])
  })

  it('a command that changes profiles.json loads the lock and the atomic writer, and only then', async () => {
    await loaded(['profile', 'list'])
    const use = await loaded(['profile', 'use', 'sandbox'])
    expect(use.packages.has('proper-lockfile')).toBe(true)
    expect(use.packages.has('write-file-atomic')).toBe(true)
  })
})

describe('start-up: real API commands against a sandbox', () => {
  let sandbox: Sandbox
  let env: Record<string, string>

  beforeAll(async () => {
    sandbox = await startSandbox(['--seed'])
    env = {OPSCTL_CHECKOUT_URL: sandbox.checkoutUrl, OPSCTL_HEALTH_URL: sandbox.healthUrl}
  })

  afterAll(async () => {
    await sandbox?.stop()
  })

  it(`api checkout GET /v1/webhooks: at most ${FILE_BUDGET.api} files, no undici (plain http goes on node:http), no WebAssembly, prompts, tables or sandbox`, async () => {
    const api = await loaded(['api', 'checkout', 'GET', '/v1/webhooks'], env)
    expect(JSON.parse(api.stdout)).toEqual(expect.any(Array))
    expect(codeFiles(api).length, codeFiles(api).join('\n')).toBeLessThanOrEqual(FILE_BUDGET.api)
    expect(api.files.filter((f) => f.startsWith('dist/sandbox/'))).toEqual([])
    expect(forbidden(api, [...NEVER, 'undici'])).toEqual([])
    expect(api.wasm).toBe(0)
  })

  it(`webhook list --json: at most ${FILE_BUDGET.api} files and ${API_KB_BUDGET} KB, the operations table (zod) but no undici, table renderer, prompts or WebAssembly`, async () => {
    const list = await loaded(['webhook', 'list', '--json'], env)
    expect(JSON.parse(list.stdout)).toHaveProperty('webhooks')
    expect(codeFiles(list).length, codeFiles(list).join('\n')).toBeLessThanOrEqual(FILE_BUDGET.api)
    expect(list.packages.has('zod')).toBe(true)
    expect(list.builtins).not.toContain('fs/promises')
    // the global performance object (perf_hooks): the request's clock and the retries' start do without it
    expect(list.builtins).not.toContain('perf_hooks')
    expect(codeKb(list), codeFiles(list).join('\n')).toBeLessThanOrEqual(API_KB_BUDGET)
    expect(forbidden(list, [...NEVER, 'undici'])).toEqual([])
    expect(list.wasm).toBe(0)
  })

  it('events list me --json: one request (me is the id stored at sign-in), no grapheme segmenter (10-14 ms of CPU) and no undici', async () => {
    const login = await runCli(['users', 'login', '--email', 'patient@demo-clinic.test', '--password-stdin'], {
      env: {...env, OPSCTL_CONFIG_DIR: dir},
      input: 'demo-patient-pass',
    })
    expect(login.code, login.stderr).toBe(0)
    const list = await loaded(['events', 'list', 'me', '--json', '--verbose'], env)
    expect(JSON.parse(list.stdout)).toHaveProperty('events')
    expect(list.stderr.split('\n').filter((l) => l.startsWith('> '))).toEqual([
      expect.stringMatching(/^> GET \S+\/api\/users\/[^/]+\/events$/),
    ])
    // paging loads the table module (progress lines are fitted to the terminal); --json shows no table
    expect(list.segmenters).toBe(0)
    // its first run writes recent-events.json, for Tab: whole, by a rename, without write-file-atomic
    // and the node:crypto it loads (a fifth of the command, every time the newest ids change)
    expect(readFileSync(join(dir, 'recent-events.json'), 'utf8')).toMatch(/^\{"sandbox":\["/)
    expect(forbidden(list, ['undici', '@inquirer/prompts', 'fastify', 'write-file-atomic'])).toEqual([])
    expect(list.builtins).not.toContain('crypto')
  })
})
