#!/usr/bin/env node
/**
 * Start-up budget: whole-process wall time of a few everyday invocations, as medians over
 * several runs after a warm-up, each compared with `node -e 0` (the floor no CLI can beat).
 *
 *   node bench/startup.mjs [--runs 15] [--json] [--bin other/bin/run.js ...] [--node path/to/node]
 *
 * `--node` (or OPSCTL_BENCH_NODE) names the Node binary every measured child runs on (default: the
 * one running the bench), the floors included, so that each Node is compared with itself. The
 * sandbox runs on the bench's own Node.
 *
 * `--bin` (repeatable) measures other builds too, interleaved with this one, e.g. a checkout of an
 * older commit, for a before/after comparison on a machine whose load changes from minute to minute.
 *
 * Needs `npm run build` first (it runs bin/run.js over dist/). Children run with
 * NODE_EXTRA_CA_CERTS and NODE_OPTIONS removed (a CA bundle adds ~110 ms to every Node start on
 * these machines and would hide what opsctl itself costs), no proxies, CI=true, and a temporary
 * OPSCTL_CONFIG_DIR and OPSCTL_CACHE_DIR that are deleted at the end. The warm-up runs fill the
 * compile cache, so the figures are those of every run after a command's first.
 *
 * The real path: a seeded sandbox is started (a separate process, on a free loopback port) and the
 * API rows send real requests to it, signed in as the seeded patient for `events list me`. The
 * dry run stays as an extra row. Each child also reports its peak RSS. The last column compares
 * each row with a bare `node:http` request of the same resource (BARE_REQUEST below): the floor of any
 * Node CLI that makes one call; for `events add`, the same two calls bare (BARE_READ_THEN_POST: the
 * user, whose plan opsctl checks the medication against, then the POST), beside the POST alone.
 */
import {spawnSync} from 'node:child_process'
import {once as onceEvent} from 'node:events'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {availableParallelism, loadavg, tmpdir} from 'node:os'
import {dirname, join, relative, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import {parseArgs} from 'node:util'

import {startSandboxProcess} from './lib/sandbox.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')

const {values} = parseArgs({
  options: {
    bin: {multiple: true, type: 'string'},
    json: {default: false, type: 'boolean'},
    node: {default: process.env.OPSCTL_BENCH_NODE || process.execPath, type: 'string'},
    runs: {default: '15', type: 'string'},
    warmup: {default: '2', type: 'string'},
  },
})
const bins = [join(ROOT, 'bin', 'run.js'), ...(values.bin ?? []).map((b) => resolve(b))]
const runs = Math.max(10, Number.parseInt(values.runs, 10) || 15)
const warmup = Math.max(1, Number.parseInt(values.warmup, 10) || 2)
const nodeBin = resolve(values.node)
const nodeVersion = spawnSync(nodeBin, ['--version'], {encoding: 'utf8'}).stdout.trim()

const configDir = mkdtempSync(join(tmpdir(), 'opsctl-bench-'))
const env = {}
for (const [k, v] of Object.entries(process.env)) {
  if (v === undefined || k.startsWith('OPSCTL_') || /^(https?_proxy|no_proxy|NODE_EXTRA_CA_CERTS|NODE_OPTIONS)$/i.test(k)) continue
  env[k] = v
}

// The compile cache (src/startup/compile-cache.ts) in the temporary folder too: the warm-up runs fill it.
Object.assign(env, {CI: 'true', NO_COLOR: '1', OPSCTL_CACHE_DIR: join(configDir, 'cache'), OPSCTL_CONFIG_DIR: configDir})

/** A seeded sandbox on a free port, for the rows that send real requests. */
async function startSandbox() {
  return startSandboxProcess({args: ['--seed'], bin: bins[0], cwd: ROOT, env})
}

const sandbox = await startSandbox()
async function stopSandbox() {
  sandbox.child.kill('SIGINT')
  await onceEvent(sandbox.child, 'exit')
  rmSync(configDir, {force: true, recursive: true})
}

Object.assign(env, {OPSCTL_CHECKOUT_URL: `${sandbox.origin}/checkout`, OPSCTL_HEALTH_URL: sandbox.origin})
const login = spawnSync(process.execPath, [bins[0], 'users', 'login', '--email', 'patient@demo-clinic.test', '--password-stdin'], {
  cwd: ROOT,
  encoding: 'utf8',
  env,
  input: 'demo-patient-pass',
})
if (login.status !== 0) {
  await stopSandbox()
  throw new Error(`users login exited ${login.status}: ${login.stderr}`)
}

// A checkout for the `checkout get` row.
const created = spawnSync(process.execPath, [bins[0], 'checkout', 'create', '--data', '@examples/checkout.json', '--json'], {cwd: ROOT, encoding: 'utf8', env})
if (created.status !== 0) {
  await stopSandbox()
  throw new Error(`checkout create exited ${created.status}: ${created.stderr}`)
}

const checkoutId = JSON.parse(created.stdout).checkoutId
const secretKey = 'sk-sandbox-Hd5Fg2Jk8Lp3Qw7Er1Ty6Ui4'
const {session, userId} = JSON.parse(readFileSync(join(configDir, 'profiles.json'), 'utf8')).profiles.sandbox.health
/**
 * The floor of any Node CLI for one call: a bare node:http request of the resource, its body
 * printed. argv: method, URL, a JSON object of headers, the body (or nothing).
 */
const BARE_REQUEST = `const [method, url, headers, body] = process.argv.slice(1)
const req = require('node:http').request(url, {headers: JSON.parse(headers), method}, (res) => {
  const chunks = []
  res.on('data', (c) => chunks.push(c))
  res.on('end', () => { process.stdout.write(Buffer.concat(chunks)); if (res.statusCode >= 300) process.exitCode = 1 })
})
req.end(body)`
/**
 * What `events add` sends, bare: the user read (opsctl checks the medication against the plan),
 * then the POST. argv: the user's URL, a JSON object of headers, the event.
 */
const BARE_READ_THEN_POST = `const [url, headers, body] = process.argv.slice(1)
const http = require('node:http')
const send = (method, target, extra, data, done) => {
  const req = http.request(target, {headers: {...JSON.parse(headers), ...extra}, method}, (res) => {
    const chunks = []
    res.on('data', (c) => chunks.push(c))
    res.on('end', () => { if (res.statusCode >= 300) process.exitCode = 1; done(Buffer.concat(chunks)) })
  })
  req.end(data)
}
send('GET', url, {}, undefined, (user) => { JSON.parse(user); send('POST', url + '/events', {'content-type': 'application/json'}, body, (out) => process.stdout.write(out)) })`
const basic = {authorization: `Basic ${Buffer.from(`${secretKey}:`).toString('base64')}`}
const signedIn = {cookie: `connect.sid=${session}`, 'x-ph-api-version': '3.14.0'}
const event = JSON.stringify({date: '2026-11-28T08:00:00.000Z', medicationId: 'med-salbutamol', medicationType: 'rescue', symptoms: ['cough']})
const bare = (name, method, path, headers, body) => ({argv: ['-e', BARE_REQUEST, method, `${sandbox.origin}${path}`, JSON.stringify(headers), ...(body ? [body] : [])], name})

const cases = [
  {argv: ['-e', '0'], name: 'node -e 0'},
  bare('bare node:http GET /checkout/v1/webhooks', 'GET', '/checkout/v1/webhooks', basic),
  bare('bare node:http GET a checkout', 'GET', `/checkout/v1/checkouts/${checkoutId}`, basic),
  bare("bare node:http GET the user's events", 'GET', `/api/users/${userId}/events`, signedIn),
  bare('bare node:http POST an event', 'POST', `/api/users/${userId}/events`, {...signedIn, 'content-type': 'application/json'}, event),
  {argv: ['-e', BARE_READ_THEN_POST, `${sandbox.origin}/api/users/${userId}`, JSON.stringify(signedIn), event], name: 'bare node:http GET the user, then POST an event'},
]
/** Each row's floor: the bare request of the same resource (the webhooks for rows that send nothing or another call). */
const [WEBHOOKS, CHECKOUT, EVENTS, ADD_EVENT] = [1, 2, 3, 5]
for (const [i, bin] of bins.entries()) {
  const label = i === 0 ? 'opsctl' : `opsctl[${relative(process.cwd(), bin) || bin}]`
  // A compile cache per build: a build's first run removes the entries of other builds.
  const own = i === 0 ? undefined : {OPSCTL_CACHE_DIR: join(configDir, `cache-${i}`)}
  cases.push(
    ...[
      {argv: [bin, '--version'], name: `${label} --version`},
      {argv: [bin, 'profile', 'list'], name: `${label} profile list`},
      {argv: [bin, 'api', 'checkout', 'GET', '/v1/webhooks'], name: `${label} api checkout GET /v1/webhooks`},
      {argv: [bin, 'webhook', 'list', '--json'], name: `${label} webhook list --json`},
      {argv: [bin, 'events', 'list', 'me', '--json'], floor: EVENTS, name: `${label} events list me --json`},
      {argv: [bin, 'checkout', 'get', checkoutId, '--json'], floor: CHECKOUT, name: `${label} checkout get ID --json`},
      {
        argv: [bin, 'events', 'add', 'me', '--medication-id', 'med-salbutamol', '--medication-type', 'rescue', '--symptom', 'cough', '--json'],
        floor: ADD_EVENT,
        name: `${label} events add me ... --json`,
      },
      {argv: [bin, 'api', 'checkout', 'GET', '/v1/x', '--dry-run'], name: `${label} api checkout GET /v1/x --dry-run`},
    ].map((c) => ({...c, env: own})),
  )
}

// What a command's first run pays, before the compile cache (src/startup/compile-cache.ts) has its code.
cases.push({
  argv: [bins[0], 'events', 'list', 'me', '--json'],
  env: {NODE_DISABLE_COMPILE_CACHE: '1'},
  name: 'opsctl events list me --json, no compile cache',
})

// Each child also reports the CPU time (user + system, all threads) it used from its own start,
// through a tiny --require hook. On a loaded machine wall time swings; CPU time much less.
const cpuHook = join(configDir, 'cpu-hook.cjs')
const cpuFile = join(configDir, 'cpu.txt')
writeFileSync(
  cpuHook,
  `process.on('exit', () => { const u = process.cpuUsage(); require('node:fs').writeFileSync(${JSON.stringify(cpuFile)}, JSON.stringify({cpu: (u.user + u.system) / 1000, rssMb: process.resourceUsage().maxRSS / 1024})) })\n`,
)

function once({argv, env: extra}) {
  const started = performance.now()
  const child = spawnSync(nodeBin, ['--require', cpuHook, ...argv], {cwd: ROOT, encoding: 'utf8', env: {...env, ...extra}})
  const ms = performance.now() - started
  if (child.status !== 0) {
    throw new Error(`${argv.join(' ')} exited ${child.status}: ${child.stderr}`)
  }

  return {...JSON.parse(readFileSync(cpuFile, 'utf8')), wall: ms}
}

function median(list) {
  const sorted = [...list].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

const results = []
try {
  // The first run also creates profiles.json, so every measured run reads an existing file.
  for (const c of cases) for (let i = 0; i < warmup; i++) once(c)
  // Interleave the cases so that a slow moment of the machine spreads over all of them.
  const samples = cases.map(() => [])
  for (let r = 0; r < runs; r++) cases.forEach((c, i) => samples[i].push(once(c)))
  const wall = (i) => samples[i].map((x) => x.wall)
  const cpu = (i) => samples[i].map((x) => x.cpu)
  const floor = median(wall(0))
  const cpuFloor = median(cpu(0))
  cases.forEach((c, i) => {
    const ms = median(wall(i))
    const cpuMs = median(cpu(i))
    results.push({
      case: c.name,
      medianMs: Math.round(ms),
      minMs: Math.round(Math.min(...wall(i))),
      maxMs: Math.round(Math.max(...wall(i))),
      ratio: Math.round((ms / floor) * 100) / 100,
      bareRatio: Math.round((ms / median(wall(c.floor ?? WEBHOOKS))) * 100) / 100,
      floor: cases[c.floor ?? WEBHOOKS].name,
      cpuMedianMs: Math.round(cpuMs),
      cpuRatio: Math.round((cpuMs / cpuFloor) * 100) / 100,
      peakRssMb: Math.round(Math.max(...samples[i].map((x) => x.rssMb))),
    })
  })
} finally {
  await stopSandbox()
}

const facts = `node ${nodeVersion}, ${runs} runs after ${warmup} warm-up, NODE_EXTRA_CA_CERTS and NODE_OPTIONS unset in the children, temporary OPSCTL_CONFIG_DIR`
if (values.json) {
  process.stdout.write(JSON.stringify({facts, results}, null, 2) + '\n')
} else {
  const head = ['case', 'median ms', 'min ms', 'max ms', 'x node -e 0', 'cpu ms', 'cpu x node -e 0', 'peak RSS MB', 'x bare request']
  const rows = results.map((r) =>
    [r.case, r.medianMs, r.minMs, r.maxMs, r.ratio.toFixed(2), r.cpuMedianMs, r.cpuRatio.toFixed(2), r.peakRssMb, r.bareRatio.toFixed(2)].map(String),
  )
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)))
  // The case name left-aligned, the numbers right-aligned: plain text, so the bench needs no table package.
  const line = (cells) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ')
  const table = {toString: () => [line(head), ...rows.map(line)].join('\n')}

  const load = loadavg()[0].toFixed(1)
  process.stdout.write(
    `opsctl start-up (${facts})\nwall: whole-process wall time, median; cpu: user + system time of the child, median; 1-minute load average ${load} on ${availableParallelism()} cores\n${table.toString()}\n`,
  )
}
