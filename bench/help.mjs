#!/usr/bin/env node
/**
 * Help and local commands against the floors, in one run: whole-process wall time and CPU time of
 * `checkout list --help`, `--help`, `help exit-codes`, `profile list` and `--version`, beside
 * `node -e 0` and a bare `node:http` GET of a loopback server of this process (the floor of a CLI
 * that makes one call). Cases alternate run by run; medians after a warm-up that fills the compile cache.
 *
 *   node bench/help.mjs [--runs 21] [--bin other/bin/run.js ...] [--node path/to/node]
 *
 * Needs `npm run build`. Children run with NODE_EXTRA_CA_CERTS and NODE_OPTIONS unset, CI=true and
 * a temporary OPSCTL_CONFIG_DIR and OPSCTL_CACHE_DIR (one per build), removed at the end.
 */
import {spawn, spawnSync} from 'node:child_process'
import {once as onceEvent} from 'node:events'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {availableParallelism, loadavg, tmpdir} from 'node:os'
import {dirname, join, relative, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import {parseArgs} from 'node:util'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const {values} = parseArgs({
  options: {
    bin: {multiple: true, type: 'string'},
    node: {default: process.execPath, type: 'string'},
    runs: {default: '21', type: 'string'},
  },
})
const bins = [join(ROOT, 'bin', 'run.js'), ...(values.bin ?? []).map((b) => resolve(b))]
const runs = Math.max(5, Number.parseInt(values.runs, 10) || 21)
const nodeBin = resolve(values.node)
const dir = mkdtempSync(join(tmpdir(), 'opsctl-bench-help-'))
const env = {}
for (const [k, v] of Object.entries(process.env)) {
  if (v === undefined || k.startsWith('OPSCTL_') || /^(https?_proxy|no_proxy|NODE_EXTRA_CA_CERTS|NODE_OPTIONS)$/i.test(k)) continue
  env[k] = v
}

Object.assign(env, {CI: 'true', OPSCTL_CONFIG_DIR: dir})
const cpuHook = join(dir, 'cpu-hook.cjs')
const cpuFile = join(dir, 'cpu.txt')
writeFileSync(
  cpuHook,
  `process.on('exit', () => { const u = process.cpuUsage(); require('node:fs').writeFileSync(${JSON.stringify(cpuFile)}, String((u.user + u.system) / 1000)) })\n`,
)

// The bare GET's server runs in a child on a free loopback port, so that spawnSync here does not stall it.
const serverChild = spawn(
  process.execPath,
  [
    '-e',
    "const s = require('node:http').createServer((_, res) => res.end('[]')).listen(0, '127.0.0.1', () => console.log(s.address().port))",
  ],
  {
    stdio: ['ignore', 'pipe', 'inherit'],
  },
)
const [port] = await onceEvent(serverChild.stdout, 'data')
const url = `http://127.0.0.1:${String(port).trim()}/`

const BARE = `require('node:http').get(process.argv[1], (res) => { const c = []; res.on('data', (d) => c.push(d)); res.on('end', () => process.stdout.write(Buffer.concat(c))) })`
const cases = [
  {argv: ['-e', '0'], name: 'node -e 0'},
  {argv: ['-e', BARE, url], name: 'bare node:http GET'},
]
for (const [i, bin] of bins.entries()) {
  const label = i === 0 ? 'opsctl' : `opsctl[${relative(process.cwd(), bin) || bin}]`
  const own = {OPSCTL_CACHE_DIR: join(dir, `cache-${i}`)}
  for (const argv of [['checkout', 'list', '--help'], ['--help'], ['help', 'exit-codes'], ['profile', 'list'], ['--version']])
    cases.push({argv: [bin, ...argv], env: own, name: `${label} ${argv.join(' ')}`})
}

function once({argv, env: extra}) {
  const started = performance.now()
  const child = spawnSync(nodeBin, ['--require', cpuHook, ...argv], {cwd: ROOT, encoding: 'utf8', env: {...env, ...extra}})
  const wall = performance.now() - started
  if (child.status !== 0) throw new Error(`${argv.join(' ')} exited ${child.status}: ${child.stderr}`)
  return {cpu: Number(readFileSync(cpuFile, 'utf8')), wall}
}

const median = (list) => {
  const s = [...list].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

try {
  for (const c of cases) for (let i = 0; i < 3; i++) once(c)
  const samples = cases.map(() => [])
  for (let r = 0; r < runs; r++) cases.forEach((c, i) => samples[i].push(once(c)))
  const wall = samples.map((s) => median(s.map((x) => x.wall)))
  const cpu = samples.map((s) => median(s.map((x) => x.cpu)))
  const version = spawnSync(nodeBin, ['--version'], {encoding: 'utf8'}).stdout.trim()
  process.stdout.write(`node ${version}, ${runs} runs, load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores\n`)
  process.stdout.write('case | wall ms | x node -e 0 | x bare GET | cpu ms | cpu x node -e 0\n')
  cases.forEach((c, i) => {
    process.stdout.write(
      `${c.name} | ${wall[i].toFixed(0)} | ${(wall[i] / wall[0]).toFixed(2)} | ${(wall[i] / wall[1]).toFixed(2)} | ${cpu[i].toFixed(1)} | ${(cpu[i] / cpu[0]).toFixed(2)}\n`,
    )
  })
} finally {
  serverChild.kill()
  rmSync(dir, {force: true, recursive: true})
}
