/**
 * The package as a user gets it: `npm pack` of this checkout (over the built dist/), installed
 * with `npm install -g` into a temporary prefix, then the installed `opsctl` run as a user runs
 * it: --version, `sandbox start --port 0` (stopped with SIGINT) and one API command against that
 * sandbox, and `smoke --sandbox`. Needs `npm run build` first (npm test does it). npm installs from
 * a registry of the test's own on loopback (test/helpers/local-registry.ts), serving the packages
 * `npm ci` left in node_modules, into an empty cache of its own: tests reach no server but their
 * own, and nothing is assumed in npm's cache. Only what dist/ loads from node_modules is a
 * dependency; the rest is bundled. SQLite is no dependency:
 * Node 22.16+ has node:sqlite; on this machine's Node 20 the sandbox says how to add better-sqlite3,
 * which the test then does as a user would (its native module the one `npm ci` already built, offered
 * to its installer as a local prebuild: with no download, the install would compile SQLite again, minutes).
 * On Node 22 (OPSCTL_TEST_NODE22, a node binary; .ci/run gives it, and in CI it is required) the
 * package installs with --ignore-scripts, nothing native, and runs `smoke --sandbox`.
 */
import {execFile} from 'node:child_process'
import {mkdtempSync, readdirSync, readFileSync, rmSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {promisify} from 'node:util'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {cliFor, ROOT, runCli, startSandbox} from '../e2e/harness.js'
import {type LocalRegistry, localRegistry} from '../helpers/local-registry.js'

const run = promisify(execFile)
/** Packing and installing from the cache takes ~15 s on two busy cores. */
const INSTALL_LIMIT_MS = 150_000

/** A prebuild-install archive of the better-sqlite3 binary in node_modules, named as its installer looks for it. */
async function localSqlitePrebuild(dir: string): Promise<string> {
  const {version} = JSON.parse(readFileSync(join(ROOT, 'node_modules/better-sqlite3/package.json'), 'utf8'))
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`
  await run('tar', ['-czf', join(dir, name), '-C', join(ROOT, 'node_modules/better-sqlite3'), 'build/Release/better_sqlite3.node'])
  return dir
}

/** A Node 22+ binary to install and run the package with (the machine's own Node is 20). */
const NODE22 = process.env.OPSCTL_TEST_NODE22
const hasNodeSqlite = Boolean((process as {getBuiltinModule?: (id: string) => unknown}).getBuiltinModule?.('node:sqlite'))

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
let work: string
let registry: LocalRegistry | undefined
let npm: (args: string[], cwd: string, env?: Record<string, string>) => Promise<{stderr: string; stdout: string}>
let packed: {filename: string; files: {path: string}[]}
let installLog: string
let opsctl: string
let installed: string
/** A config folder inside the test's own temporary folder: an installed opsctl must not write the user's ~/.config. */
const own = () => ({OPSCTL_CONFIG_DIR: join(work, 'config')})

/** The packages under a node_modules folder (scoped ones counted one by one), nested ones included. */
function packagesUnder(modules: string): string[] {
  const found: string[] = []
  for (const entry of readdirSync(modules, {withFileTypes: true})) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue
    const path = join(modules, entry.name)
    const packages = entry.name.startsWith('@') ? readdirSync(path).map((name) => join(path, name)) : [path]
    for (const pkgDir of packages) {
      found.push(pkgDir)
      const nested = join(pkgDir, 'node_modules')
      if (statSync(nested, {throwIfNoEntry: false})?.isDirectory()) found.push(...packagesUnder(nested))
    }
  }

  return found
}

function megabytesUnder(dir: string): number {
  let bytes = 0
  for (const entry of readdirSync(dir, {recursive: true, withFileTypes: true})) {
    if (entry.isFile()) bytes += statSync(join(entry.parentPath, entry.name)).size
  }

  return bytes / 1024 / 1024
}

describe('the packed and installed package', {timeout: INSTALL_LIMIT_MS}, () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'opsctl-pack-'))
    const prebuilds = await localSqlitePrebuild(work)
    registry = await localRegistry(ROOT, [...Object.keys(pkg.dependencies), 'better-sqlite3'], mkdtempSync(join(work, 'registry-')))
    const registryEnv = {
      npm_config_better_sqlite3_local_prebuilds: prebuilds,
      npm_config_cache: join(work, 'npm-cache'),
      npm_config_registry: registry.url,
      npm_config_update_notifier: 'false',
    }
    npm = (args, cwd, extra = {}) =>
      run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=warn'], {
        cwd,
        env: {...process.env, ...registryEnv, ...extra},
        maxBuffer: 16 * 1024 * 1024,
        timeout: INSTALL_LIMIT_MS / 2,
      })
    // The build is already there; the tarball is what `npm publish` would upload.
    const pack = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT)
    packed = JSON.parse(pack.stdout)[0]
    const install = await npm(
      ['install', '--global', '--prefix', join(work, 'prefix'), join(work, packed.filename)],
      work,
    )
    installLog = install.stdout + install.stderr
    opsctl = join(work, 'prefix', 'bin', 'opsctl')
    installed = join(work, 'prefix', 'lib', 'node_modules', 'opsctl')
  }, INSTALL_LIMIT_MS)

  afterAll(async () => {
    await registry?.close()
    if (work) rmSync(work, {force: true, recursive: true})
  })

  it('ships the CLI, its manifest and the LICENSE, without the development entry point', () => {
    const files = packed.files.map((f) => f.path)
    expect(files).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'bin/package.json',
        'bin/run.js',
        'oclif.manifest.json',
        'package.json',
        'dist/commands/checkout/create.js',
      ]),
    )
    expect(files).not.toContain('bin/dev.js')
    expect(files.filter((f) => !/^(dist\/|examples\/|bin\/(run\.js|package\.json)$|LICENSE$|README\.md$|oclif\.manifest\.json$|package\.json$)/.test(f))).toEqual([])
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} /)
    expect(pkg.license).toBe('MIT')
    for (const field of [pkg.repository.url, pkg.homepage, pkg.bugs.url]) expect(field).toMatch(/^(git\+)?https:\/\//)
  })

  it('installs light: what the bundle does not hold, once, and nothing native (193 packages and 70 MB before the bundle; 37 MB with better-sqlite3)', () => {
    const packages = packagesUnder(join(installed, 'node_modules'))
    const names = packages.map((p) => p.slice(p.lastIndexOf('node_modules/') + 'node_modules/'.length))
    expect(packages.length, names.join(' ')).toBeLessThan(30)
    expect(megabytesUnder(installed)).toBeLessThan(12)
    // One copy of oclif (the bundle's): no plugin brings its own.
    expect(names.filter((n) => n === '@oclif/core')).toEqual([])
    expect(names).not.toContain('better-sqlite3')
    expect(Object.keys(pkg.dependencies).sort()).toEqual(['open'])
  })

  it('installs on this Node without an engine warning', () => {
    expect(installLog).not.toContain('EBADENGINE')
  })

  it.skipIf(hasNodeSqlite)('on a Node without node:sqlite, a sandbox says in one line how to get SQLite, exit 1', async () => {
    for (const argv of [['sandbox', 'start', '--port', '0'], ['smoke', '--sandbox']]) {
      const r = await runCli(argv, {bin: opsctl, env: own()})
      expect(r.code, argv.join(' ')).toBe(1)
      expect(r.stderr.trim().split('\n'), r.stderr).toEqual([
        `Error: The sandbox needs SQLite: use Node 22.16 or later (it has node:sqlite), or add it to this Node ${process.version} with: npm install --global better-sqlite3 --prefix ${join(work, 'prefix')}`,
      ])
    }

    // what that line says, done (the clone's version, whose binary npm ci built: localSqlitePrebuild)
    const {version} = JSON.parse(readFileSync(join(ROOT, 'node_modules/better-sqlite3/package.json'), 'utf8'))
    await npm(['install', '--global', `better-sqlite3@${version}`, '--prefix', join(work, 'prefix')], work)
  })

  it('the installed opsctl prints its version, runs a sandbox, and talks to it with its user-agent', async () => {
    const version = await runCli(['--version'], {bin: opsctl, env: own()})
    expect(version.code).toBe(0)
    expect(version.stdout).toContain(`opsctl/${pkg.version}`)

    const sandbox = await startSandbox([], {}, opsctl)
    const user = cliFor(sandbox)
    try {
      const listed = await user.run(['webhook', 'list', '--json', '--verbose'], {bin: opsctl})
      expect(listed.code).toBe(0)
      expect(JSON.parse(listed.stdout)).toEqual({webhooks: []})
      expect(listed.stderr).toContain(`user-agent: opsctl/${pkg.version} node/${process.versions.node}`)
    } finally {
      user.cleanup()
      expect(await sandbox.stop('SIGINT')).toBe(0)
    }

    const smoke = await runCli(['smoke', '--sandbox', '--json'], {bin: opsctl, env: own()})
    expect(smoke.code, smoke.stderr).toBe(0)
    expect(JSON.parse(smoke.stdout).summary).toMatchObject({failed: 0})
  })

  describe.runIf(NODE22 || process.env.CI)('the packed package installed on Node 22 without install scripts', {timeout: INSTALL_LIMIT_MS}, () => {
  let dir: string
  afterAll(() => {
    if (dir) rmSync(dir, {force: true, recursive: true})
  })

  it('installs nothing native, in under 12 MB, and passes smoke --sandbox on node:sqlite', async () => {
    expect(NODE22, 'OPSCTL_TEST_NODE22 names a Node 22+ binary (.ci/run sets it)').toBeTruthy()
    const node = NODE22!
    dir = mkdtempSync(join(tmpdir(), 'opsctl-pack22-'))
    const path = `${dirname(node)}:${process.env.PATH}`
    const {stdout: version} = await run(node, ['--version'])
    expect(version).toMatch(/^v2[2-9]\./)
    const install = await npm(['install', '--global', '--prefix', join(dir, 'prefix'), '--ignore-scripts', join(work, packed.filename)], dir, {PATH: path})
    expect(install.stdout + install.stderr).not.toContain('EBADENGINE')
    const home = join(dir, 'prefix', 'lib', 'node_modules', 'opsctl')
    const megabytes = megabytesUnder(home)
    console.log(`installed on Node ${version.trim()}: ${megabytes.toFixed(1)} MB, ${packagesUnder(join(home, 'node_modules')).length} packages`)
    expect(megabytes).toBeLessThan(12)
    expect(readdirSync(home, {recursive: true}).filter((f) => String(f).endsWith('.node'))).toEqual([])

    const smoke = await runCli([join(home, 'bin', 'run.js'), 'smoke', '--sandbox', '--json'], {bin: node, env: {OPSCTL_CONFIG_DIR: join(dir, 'config')}})
    expect(smoke.code, smoke.stderr).toBe(0)
    expect(smoke.stderr).not.toContain('ExperimentalWarning')
    expect(JSON.parse(smoke.stdout).summary).toMatchObject({failed: 0})
  })
})
})
