#!/usr/bin/env node
/**
 * Sandbox replicas: ONE mixed workload, in one run, against three set-ups, each on a fresh state:
 *   sqlite     one `sandbox start` process, in-memory SQLite state (no --state);
 *   pg x1      one replica on PostgreSQL (OPSCTL_SANDBOX_DATABASE, OPSCTL_SANDBOX_TOKEN);
 *   pg x2      two replicas on one PostgreSQL database, the requests spread round-robin over both.
 * One throwaway cluster (bench/lib/postgres.mjs, as the tests make one) serves both PG set-ups,
 * each on its own database (`CREATE DATABASE bench_2`, `bench_3`); it is stopped and removed at the end.
 *
 *   node bench/sandbox-replicas.mjs [--clients 16] [--seconds 10] [--warmup 2] [--bin path/to/bin/run.js]
 *
 * The workload: --clients concurrent clients, each with two sandbox tenants of its own (POST
 * /__sandbox/tenants; the sandbox takes a per-tenant write lock on PostgreSQL, so clients do not
 * serialize on each other): a health one with a patient made through the health API, and a
 * checkout one. Each client loops over: add a manual event, list events (first page), create a
 * checkout, pay it on the hosted page, refund one paid on an earlier sandbox day (refunds open the
 * day after a payment), and every 5 loops move the checkout tenant's clock 26h on, so that what was
 * paid before can be refunded: about one refund a loop once the first move is done (in the
 * warm-up). Health has a tenant of its own because a session expires after 30 minutes idle on the
 * sandbox clock, and signing in again (scrypt) would dominate the mix. Every one of these is a
 * request of the figures. Requests go through one undici keep-alive Agent.
 *
 * How to read it: requests is the number of requests answered 2xx/3xx that started and ended within
 * the --seconds window (the --warmup before it is not counted); rps = requests / seconds; p50, p99
 * are the latencies of those requests; errors are the other answers (4xx/5xx, network errors) in
 * the window, listed below the table by kind: a run with errors says so. The load generator,
 * PostgreSQL and the replicas share this machine's cores (printed in the header), so on a small
 * machine the 2-replica ratio is bounded by CPU, not by the sandbox design: the cpu column says
 * how many CPU seconds the load generator, the sandboxes and PostgreSQL each used in the window
 * (Linux /proc), out of seconds x cores; what is missing was used by other processes. Loopback only.
 * Exits 2 when the PostgreSQL binaries (initdb, postgres) are absent.
 */
import {once} from 'node:events'
import {availableParallelism, loadavg} from 'node:os'
import {join, resolve} from 'node:path'
import {parseArgs} from 'node:util'
import pg from 'pg'
import {Agent, request} from 'undici'

import {cpuSeconds} from './lib/cpu.mjs'
import {cleanEnv} from './lib/env.mjs'
import {postgresBinDir, startPostgres} from './lib/postgres.mjs'
import {startSandboxProcess} from './lib/sandbox.mjs'

const ROOT = resolve(import.meta.dirname, '..')
const string = (value) => ({default: value, type: 'string'})
const {values} = parseArgs({options: {bin: string(join(ROOT, 'bin/run.js')), clients: string('16'), seconds: string('10'), warmup: string('2')}})
const BIN = resolve(values.bin)
const CLIENTS = Math.min(49, Math.max(1, Number(values.clients))) // two tenants each; a sandbox holds at most 100, the default one included
const SECONDS = Number(values.seconds)
const WARMUP = Number(values.warmup)
const TOKEN = 'bench-replicas-control-token'
const CLOCK_EVERY = 5
const V = {'x-ph-api-version': '3.14.0'}
const CARD = new URLSearchParams({action: 'pay', cardNumber: '5123456789012346', cvc: '123', expiry: '12/30'}).toString()
const basic = (key) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`
const JSON_TYPE = {'content-type': 'application/json'}

if (!postgresBinDir()) {
  console.error('PostgreSQL binaries (initdb, postgres) not found in OPSCTL_POSTGRES_BIN, /usr/local/bin or /usr/lib/postgresql/*/bin: install Debian postgresql or set OPSCTL_POSTGRES_BIN')
  process.exit(2)
}

// Everything started is stopped in reverse order, on success, on failure and on Ctrl-C / SIGTERM.
// One cleanup, whoever asks first: the main path and a signal handler both wait for it to finish.
const cleanups = []
const agent = new Agent({keepAliveTimeout: 30_000})
let cleaning
let exitCode = 0
const stopping = () => cleaning !== undefined
function cleanup() {
  cleaning ??= (async () => {
    // the clients stop and their connections close first: a sandbox asked to stop while requests
    // keep coming may not finish stopping (seen on PostgreSQL: "driver has already been destroyed")
    await agent.destroy().catch(() => undefined)
    for (const undo of cleanups.reverse()) await undo().catch((error) => console.error(`cleanup: ${error.message}`))
  })()
  return cleaning
}

/** Registers how to stop what was just started; stops it at once if the cleanup has begun meanwhile. */
async function own(stop) {
  if (!cleaning) {
    cleanups.push(stop)
    return
  }

  await stop()
  throw new Error('stopped')
}

for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]]) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping the sandboxes and PostgreSQL`)
    exitCode = code
    cleanup().finally(() => process.exit(code))
  })
}

async function startReplica(extraEnv) {
  const sandbox = await startSandboxProcess({bin: BIN, cwd: ROOT, env: cleanEnv(extraEnv)})
  const exited = once(sandbox.child, 'exit')
  const stop = async () => {
    if (sandbox.child.exitCode === null && sandbox.child.signalCode === null) sandbox.child.kill('SIGTERM')
    const late = setTimeout(() => {
      console.error(`sandbox ${sandbox.child.pid} still running 10 s after SIGTERM: SIGKILL`)
      sandbox.child.kill('SIGKILL')
    }, 10_000)
    await exited
    clearTimeout(late)
  }

  await own(stop)
  return {...sandbox, stop}
}

/** One request to the next origin in turn; the answer when 2xx/3xx, else undefined (counted as an error when in the window). */
async function send(run, method, path, {body, headers = {}} = {}) {
  const origin = run.origins[run.next++ % run.origins.length]
  const started = performance.now()
  let error
  let res
  let text
  try {
    res = await request(origin + path, {body, dispatcher: agent, headers, method})
    text = await res.body.text()
  } catch (error_) {
    error = error_.code ?? error_.message
  }

  const ended = performance.now()
  const inWindow = started >= run.stats.windowStart && ended <= run.stats.windowEnd
  // the kind: method and route without the tenant and ids
  const route = `${method} ${path.replace(/\/t\/tn_\w+/, '').replaceAll(/\/(chk|rfd)_\w+/g, '/:id')}`
  if (res?.statusCode >= 200 && res.statusCode < 400) {
    if (inWindow) {
      run.stats.latencies.push(ended - started)
      run.stats.done.set(route, (run.stats.done.get(route) ?? 0) + 1)
    }

    return {headers: res.headers, text}
  }

  const kind = `${route} ${res?.statusCode ?? error}`
  // errors of the warm-up and of the tail after the window are told apart, not hidden
  if (inWindow) run.stats.errorCount++
  else run.stats.otherErrors++
  const seen = run.stats.errors.get(kind) ?? {count: 0, sample: (text ?? '').slice(0, 160)}
  seen.count++
  run.stats.errors.set(kind, seen)
}

/** A client's own two tenants: health (a patient signed in; its clock never moves) and checkout (its keys). */
async function setUpClient(run, i) {
  const tenant = async () => {
    const created = await send(run, 'POST', '/__sandbox/tenants', {body: '{}', headers: {authorization: `Bearer ${run.token}`, ...JSON_TYPE}})
    if (!created) throw new Error(`could not create a tenant for client ${i}: ${JSON.stringify([...run.stats.errors])}`)
    return JSON.parse(created.text)
  }

  const health = await tenant()
  const checkout = await tenant()
  const user = {role: 'patient', email: `bench-${i}@example.com`, password: 'bench-pass-1', givenName: 'B', familyName: 'Ench', timeZone: 'Asia/Manila'}
  const res = await request(`${run.origins[0]}/t/${health.id}/api/users`, {body: JSON.stringify(user), dispatcher: agent, headers: {...V, ...JSON_TYPE}, method: 'POST'})
  await res.body.dump()
  if (res.statusCode !== 201) throw new Error(`could not create a user in ${health.id}: ${res.statusCode}`)
  const session = {...V, cookie: String(res.headers['set-cookie']).split(';')[0]}
  return {c: `/t/${checkout.id}`, h: `/t/${health.id}`, publicKey: basic(checkout.publicKey), secretKey: basic(checkout.secretKey), session}
}

async function clientLoop(run, {c, h, publicKey, secretKey, session}, until) {
  const paid = [] // {id, day}: paid on sandbox day `day`, refundable once the clock is past it
  let day = 0
  for (let loop = 1; performance.now() < until && !stopping(); loop++) {
    const event = {date: new Date(Date.now() - 3_600_000).toISOString(), medicationId: 'med-salbutamol', medicationType: 'rescue', source: 'manual', symptoms: ['cough']}
    await send(run, 'POST', `${h}/api/users/me/events`, {body: JSON.stringify(event), headers: {...session, ...JSON_TYPE}})
    await send(run, 'GET', `${h}/api/users/me/events`, {headers: session})
    const checkout = {totalAmount: {value: '100.00', currency: 'PHP'}, items: [{name: 'Tea'}], requestReferenceNumber: `BENCH-${loop}`, redirectUrl: {success: 'https://shop.example/ok'}}
    const created = await send(run, 'POST', `${c}/checkout/v1/checkouts`, {body: JSON.stringify(checkout), headers: {authorization: publicKey, ...JSON_TYPE}})
    if (created) {
      const form = {body: CARD, headers: {'content-type': 'application/x-www-form-urlencoded'}}
      const {checkoutId} = JSON.parse(created.text)
      if (await send(run, 'POST', `${c}/checkout/pay/${checkoutId}`, form)) paid.push({day, id: checkoutId})
    }

    if (paid.length > 0 && paid[0].day < day) {
      const refund = {reason: 'bench', amount: {value: '100.00', currency: 'PHP'}}
      await send(run, 'POST', `${c}/checkout/v1/checkouts/${paid.shift().id}/refunds`, {body: JSON.stringify(refund), headers: {authorization: secretKey, ...JSON_TYPE}})
    }

    if (loop % CLOCK_EVERY === 0) {
      const moved = await send(run, 'POST', `${c}/__sandbox/clock`, {body: JSON.stringify({advance: '26h'}), headers: {authorization: `Bearer ${run.token}`, ...JSON_TYPE}})
      if (moved) day++
    }
  }
}

/** Starts the set-up's processes, runs the workload over them, stops them. */
async function measure(name, replicas, env, postmaster) {
  const started = []
  // one after the other: the first creates the schema and the default tenant
  for (let i = 0; i < replicas; i++) started.push(await startReplica(env))
  const run = {next: 0, origins: started.map((s) => s.origin), stats: {done: new Map(), errors: new Map(), errorCount: 0, latencies: [], otherErrors: 0, windowEnd: Infinity, windowStart: Infinity}, token: started[0].token}
  try {
    const clients = await Promise.all(Array.from({length: CLIENTS}, (_, i) => setUpClient(run, i)))
    run.stats.windowStart = performance.now() + WARMUP * 1000
    run.stats.windowEnd = run.stats.windowStart + SECONDS * 1000
    const cpu = () => cpuSeconds(started.map((s) => s.child.pid), postmaster)
    const at = (seconds) => new Promise((ok) => setTimeout(() => ok(cpu()), seconds * 1000))
    const [, before, after] = await Promise.all([Promise.all(clients.map((c) => clientLoop(run, c, run.stats.windowEnd))), at(WARMUP), at(WARMUP + SECONDS)])
    run.stats.cpu = Object.fromEntries(Object.keys(before).map((k) => [k, after[k] - before[k]]))
    if (cleaning) throw new Error('stopped') // interrupted: no figures
  } finally {
    for (const s of started) await s.stop()
  }

  return {name, replicas, ...run.stats}
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN

try {
  const cluster = await startPostgres()
  await own(() => cluster.stop())
  const admin = new pg.Client({connectionString: cluster.url})
  await admin.connect()
  await own(() => admin.end())
  const database = async (n) => {
    await admin.query(`CREATE DATABASE bench_${n}`)
    return cluster.urlOf(`bench_${n}`)
  }

  console.log(
    `sandbox replicas: ${CLIENTS} clients, ${SECONDS} s measured after ${WARMUP} s warm-up, ${availableParallelism()} cores (shared by the load generator, PostgreSQL and the sandboxes), load ${loadavg()[0].toFixed(1)}, node ${process.version}`,
  )
  const results = []
  results.push(await measure('sqlite (in memory), 1 process', 1, {}, cluster.pid))
  for (const n of [1, 2]) {
    const env = {OPSCTL_SANDBOX_DATABASE: await database(n + 1), OPSCTL_SANDBOX_TOKEN: TOKEN}
    results.push(await measure(n === 1 ? 'postgres, 1 replica' : 'postgres, 2 replicas (round-robin)', n, env, cluster.pid))
  }

  // cpu: CPU seconds used in the window by the load generator / the sandboxes / PostgreSQL
  // cpu ms/req: what one answered request cost the sandbox processes and PostgreSQL, the figure
  // that says what N replicas on machines of their own would reach (docs/architecture.md)
  const head = ['set-up', 'requests', 'rps', 'p50 ms', 'p99 ms', 'errors', 'cpu s gen/sandbox/pg', 'cpu ms/req sandbox/pg']
  const rows = results.map((r) => {
    const sorted = r.latencies.sort((a, b) => a - b)
    r.rps = sorted.length / SECONDS
    return [r.name, String(sorted.length), r.rps.toFixed(0), percentile(sorted, 50).toFixed(1), percentile(sorted, 99).toFixed(1), String(r.errorCount), [r.cpu.gen, r.cpu.other, r.cpu.pg].map((x) => x.toFixed(1)).join(' / '), [r.cpu.other, r.cpu.pg].map((x) => ((x * 1000) / Math.max(1, sorted.length)).toFixed(2)).join(' / ')]
  })
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)))
  const line = (cells) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ')
  console.log(['', line(head), ...rows.map(line), ''].join('\n'))
  console.log(`(cpu: CPU seconds each part used in the ${SECONDS} s window, out of ${SECONDS * availableParallelism()} the machine has)`)
  for (const r of results) console.log(`mix of ${r.name}: ${[...r.done].sort().map(([route, n]) => `${route} ${n}`).join(', ')}`)
  console.log(`1 replica / sqlite: ${(results[1].rps / results[0].rps).toFixed(2)}x rps (goal >= 0.5x)`)
  const ratio = results[2].rps / results[1].rps
  console.log(`2 replicas / 1 replica: ${ratio.toFixed(2)}x rps (goal >= 1.6x where the database and CPU are not the bottleneck)`)
  const errors = results.filter((r) => r.errorCount + r.otherErrors > 0)
  if (errors.length === 0) console.log('errors: none')
  for (const r of errors) {
    console.log(`ERRORS in ${r.name}: ${r.errorCount} in the window, ${r.otherErrors} in the warm-up or the set-up or after the window`)
    for (const [kind, {count, sample}] of r.errors) console.log(`  ${count} x ${kind}  ${sample}`)
  }
} catch (error) {
  if (exitCode === 0) console.error(error) // after a signal, the failure is only the stopped sandboxes
  exitCode ||= 1
} finally {
  await cleanup()
}

process.exit(exitCode)
