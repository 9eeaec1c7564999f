#!/usr/bin/env node
/**
 * Would a V8 startup snapshot start an API command sooner? (docs/startup.md, "Tried")
 *
 *   node bench/startup-snapshot.mjs [--node path/to/node] [--runs 15]
 *
 * Builds, in a temporary folder, a snapshot whose heap holds what `webhook list` loads (dist/'s
 * command, oclif, zod, the client, the secret guard: bundled into one file, as Node's snapshot
 * builder needs), and a snapshot of an empty heap. Then, alternating the cases run by run against a
 * seeded local sandbox, it times: `node -e 0`; a bare `node:http` GET of the webhooks; Node started
 * from each snapshot doing nothing (what deserialising the heap costs); `webhook list --json` run
 * from the snapshot; and `webhook list --json` as users run it (bin/run.js, compile cache warm). It
 * checks that the snapshot's run prints what bin/run.js prints.
 *
 * A measurement, not a start path: the snapshot's heap is made at build time (the modules'
 * load-time state included), and Node takes a snapshot only on its own command line. Children run
 * with NODE_EXTRA_CA_CERTS and NODE_OPTIONS unset and a temporary config and cache folder, deleted
 * at the end. Needs `npm run build` first.
 */
import {build} from 'esbuild'
import {spawnSync} from 'node:child_process'
import {once as onceEvent} from 'node:events'
import {mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import {parseArgs} from 'node:util'

import {cleanEnv} from './lib/env.mjs'
import {startSandboxProcess} from './lib/sandbox.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const DIST = join(ROOT, 'dist')
const {values} = parseArgs({
  options: {
    node: {default: process.env.OPSCTL_BENCH_NODE || process.execPath, type: 'string'},
    runs: {default: '15', type: 'string'},
  },
})
const runs = Math.max(5, Number.parseInt(values.runs, 10) || 15)
const nodeBin = resolve(values.node)
const nodeVersion = spawnSync(nodeBin, ['--version'], {encoding: 'utf8'}).stdout.trim()

const work = mkdtempSync(join(tmpdir(), 'opsctl-bench-snapshot-'))
const env = cleanEnv({OPSCTL_CACHE_DIR: join(work, 'cache'), OPSCTL_CONFIG_DIR: join(work, 'config')})
const cpuFile = join(work, 'cpu.txt')

/** The snapshot's entry: loads what `webhook list` needs at build time; at start, runs it as bin/run.js would. */
const ENTRY = `'use strict'
const {startupSnapshot} = require('node:v8')
const {registerArgv, registerEnv} = require(${JSON.stringify(join(DIST, 'http/secrets/sources.js'))})
const {guardFatalErrors, guardOutputStreams} = require(${JSON.stringify(join(DIST, 'http/secrets/streams.js'))})
const {directCommand} = require(${JSON.stringify(join(DIST, 'startup/direct-start.js'))})
const {lightConfig} = require(${JSON.stringify(join(ROOT, 'src/startup/light-config.ts'))})
const WebhookList = require(${JSON.stringify(join(DIST, 'commands/webhook/list.js'))}).default
const index = JSON.parse(require('node:fs').readFileSync(${JSON.stringify(join(DIST, 'command-index.json'))}, 'utf8'))
startupSnapshot.setDeserializeMainFunction(async () => {
  const cpuFile = process.env.BENCH_CPU_FILE
  if (cpuFile) process.on('exit', () => { const u = process.cpuUsage(); require('node:fs').writeFileSync(cpuFile, String((u.user + u.system) / 1000)) })
  const argv = process.argv.slice(1)
  if (argv[0] === 'noop') return
  registerArgv(argv)
  registerEnv(process.env)
  guardOutputStreams()
  guardFatalErrors()
  const found = directCommand(index, argv)
  if (found?.id !== 'webhook:list') throw new Error('this snapshot holds webhook list only')
  WebhookList.id = found.id
  await new WebhookList([...found.argv], lightConfig(${JSON.stringify(ROOT)}, index))._run()
})
`
const EMPTY = `require('node:v8').startupSnapshot.setDeserializeMainFunction(() => {
  const cpuFile = process.env.BENCH_CPU_FILE
  if (cpuFile) process.on('exit', () => { const u = process.cpuUsage(); require('node:fs').writeFileSync(cpuFile, String((u.user + u.system) / 1000)) })
})
`

/**
 * Node's snapshot builder takes one file that requires only Node's own modules. Files of dist/ that
 * `loaded` does not list stay outside it (a command's lazy imports: undici, the sandbox...), so that
 * the heap holds no more source than a real run of the command loads.
 */
async function buildSnapshot(name, source, loaded) {
  const entry = join(work, `${name}-entry.cjs`)
  const bundle = join(work, `${name}.cjs`)
  const blob = join(work, `${name}.blob`)
  writeFileSync(entry, source)
  await build({
    absWorkingDir: ROOT,
    bundle: true,
    entryPoints: [entry],
    external: ['better-sqlite3', 'pg-native', 'open'],
    format: 'cjs',
    logLevel: 'error',
    outfile: bundle,
    platform: 'node',
    plugins: loaded ? [onlyLoaded(loaded)] : [],
  })
  const started = performance.now()
  const made = spawnSync(nodeBin, ['--snapshot-blob', blob, '--build-snapshot', bundle], {cwd: work, encoding: 'utf8', env})
  if (made.status !== 0) {
    const why = made.stderr.split('\n').find((line) => /Error|Fatal|failed/.test(line)) ?? `exit ${made.status ?? made.signal}`
    return {error: why.trim()}
  }

  return {blob, bundleBytes: statSync(bundle).size, blobBytes: statSync(blob).size, buildMs: performance.now() - started}
}

/** Leaves out of the bundle every file of dist/ that the command's real run does not load. */
function onlyLoaded(loaded) {
  return {
    name: 'only-loaded',
    setup(b) {
      b.onResolve({filter: /^\.{1,2}\//}, (args) => {
        const path = resolve(args.resolveDir, args.path)
        return path.startsWith(DIST) && !loaded.has(path) ? {external: true, path} : undefined
      })
    },
  }
}

/** The files of dist/ that `webhook list --json` loads when bin/run.js runs it. */
function filesLoaded() {
  const listHook = join(work, 'list-hook.cjs')
  const listFile = join(work, 'loaded.json')
  writeFileSync(listHook, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(listFile)}, JSON.stringify(Object.keys(require.cache))))\n`)
  const run = spawnSync(nodeBin, ['--require', listHook, join(ROOT, 'bin/run.js'), 'webhook', 'list', '--json'], {cwd: ROOT, encoding: 'utf8', env})
  if (run.status !== 0) throw new Error(`webhook list exited ${run.status}: ${run.stderr}`)
  return new Set(JSON.parse(readFileSync(listFile, 'utf8')).filter((file) => file.startsWith(DIST)))
}

let sandbox
try {
  sandbox = await startSandboxProcess({args: ['--seed'], bin: join(ROOT, 'bin/run.js'), cwd: ROOT, env})
  Object.assign(env, {OPSCTL_CHECKOUT_URL: `${sandbox.origin}/checkout`, OPSCTL_HEALTH_URL: sandbox.origin})
  const loaded = filesLoaded()
  const empty = await buildSnapshot('empty', EMPTY)
  const command = await buildSnapshot('webhook-list', ENTRY, loaded)
  if (empty.error || command.error) {
    process.stdout.write(`node ${nodeVersion}: its snapshot builder fails (${empty.error ?? command.error}); nothing to measure\n`)
  } else {
    const basic = `Basic ${Buffer.from('sk-sandbox-Hd5Fg2Jk8Lp3Qw7Er1Ty6Ui4:').toString('base64')}`
    const bare = `require('node:http').get(${JSON.stringify(`${sandbox.origin}/checkout/v1/webhooks`)}, {headers: {authorization: ${JSON.stringify(basic)}}}, (res) => { const c = []; res.on('data', (x) => c.push(x)); res.on('end', () => process.stdout.write(Buffer.concat(c))) })`
    const cpuHook = join(work, 'cpu-hook.cjs')
    writeFileSync(cpuHook, `process.on('exit', () => { const u = process.cpuUsage(); require('node:fs').writeFileSync(${JSON.stringify(cpuFile)}, String((u.user + u.system) / 1000)) })\n`)
    const cases = [
      {argv: ['--require', cpuHook, '-e', '0'], name: 'node -e 0'},
      {argv: ['--require', cpuHook, '-e', bare], name: 'bare node:http GET /checkout/v1/webhooks'},
      {argv: ['--snapshot-blob', empty.blob], name: 'empty snapshot, nothing run'},
      {argv: ['--snapshot-blob', command.blob, 'noop'], name: "webhook list's snapshot, nothing run"},
      {argv: ['--snapshot-blob', command.blob, 'webhook', 'list', '--json'], name: "webhook list --json from its snapshot"},
      {argv: ['--require', cpuHook, join(ROOT, 'bin/run.js'), 'webhook', 'list', '--json'], name: 'webhook list --json (bin/run.js)'},
    ]
    const once = ({argv}) => {
      rmSync(cpuFile, {force: true})
      const started = performance.now()
      const child = spawnSync(nodeBin, argv, {cwd: ROOT, encoding: 'utf8', env: {...env, BENCH_CPU_FILE: cpuFile}})
      const wall = performance.now() - started
      if (child.status !== 0) throw new Error(`${argv.join(' ')} exited ${child.status}: ${child.stderr}`)
      return {cpu: Number(readFileSync(cpuFile, 'utf8')), stdout: child.stdout, wall}
    }

    // Two warm-up runs each (bin/run.js's compile cache fills), and the same answer both ways.
    for (const c of cases) for (let i = 0; i < 2; i++) once(c)
    if (once(cases[4]).stdout !== once(cases[5]).stdout) throw new Error('the snapshot printed something else than bin/run.js')
    const samples = cases.map(() => [])
    for (let r = 0; r < runs; r++) cases.forEach((c, i) => samples[i].push(once(c)))
    const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]
    const floor = median(samples[1].map((s) => s.wall))
    const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`
    process.stdout.write(
      `node ${nodeVersion}, ${runs} runs after 2 warm-up\n` +
        `snapshots: empty ${mb(empty.blobBytes)}; webhook list's ${mb(command.blobBytes)} (the ${loaded.size} files of dist/ it loads, ${mb(command.bundleBytes)} of JavaScript; built in ${Math.round(command.buildMs)} ms)\n`,
    )
    const head = ['case', 'wall ms', 'cpu ms', 'x bare GET']
    const rows = cases.map((c, i) => {
      const wall = median(samples[i].map((s) => s.wall))
      return [c.name, wall.toFixed(0), median(samples[i].map((s) => s.cpu)).toFixed(0), (wall / floor).toFixed(2)]
    })
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)))
    const line = (cells) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ')
    process.stdout.write(`${[line(head), ...rows.map(line)].join('\n')}\n`)
  }
} finally {
  if (sandbox) {
    sandbox.child.kill('SIGINT')
    await onceEvent(sandbox.child, 'exit')
  }

  rmSync(work, {force: true, recursive: true})
}
