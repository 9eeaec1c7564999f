#!/usr/bin/env node
/**
 * The sandbox's state database under size: write latency (p50, p99) of `events add` and of a
 * checkout create + pay at 0, 20,000 and 200,000 stored events, the latency of `events list`
 * with three filters at 200,000, and authenticated GET req/s next to a bare fastify route that
 * returns the same JSON, measured side by side in this run.
 *
 *   node bench/sandbox-state.mjs [--samples 300] [--seconds 3] [--rounds 3]
 *
 * The sandbox runs in this process (the same createSandbox `sandbox start` runs, bundled from src/
 * with esbuild as `npm run build` does: dist/ has no module of its own for it) on a --state file
 * in a temporary folder, so every write is a real fsynced commit. Events are seeded through the
 * store in one request (the bulk control route), not 200,000 HTTP calls. Loopback only, free
 * ports. Runs with NODE_EXTRA_CA_CERTS unset (it re-executes itself without it when set).
 */
import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {parseArgs} from 'node:util'

if (process.env.NODE_EXTRA_CA_CERTS) {
  const env = {...process.env}
  delete env.NODE_EXTRA_CA_CERTS
  const child = spawnSync(process.execPath, process.argv.slice(1), {env, stdio: 'inherit'})
  process.exit(child.status ?? 1)
}

const {default: Fastify} = await import('fastify')
const {Pool} = await import('undici')
const {build} = await import('esbuild')
const ROOT = resolve(import.meta.dirname, '..')

/**
 * createSandbox and the sandbox keys, bundled into a temporary folder inside the project (so the
 * packages, left outside the bundle, resolve from node_modules); removed when the bench exits.
 */
async function loadSandbox() {
  const out = mkdtempSync(join(ROOT, '.bench-bundle-'))
  process.once('exit', () => rmSync(out, {force: true, recursive: true}))
  await build({
    absWorkingDir: ROOT,
    entryPoints: {server: 'src/sandbox/core/server.ts', keys: 'src/services/sandbox-defaults.ts'},
    outdir: out,
    outExtension: {'.js': '.mjs'},
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    // as scripts/bundle.mjs does: the version is a constant, not read from a package.json beside the module
    define: {OPSCTL_VERSION: JSON.stringify(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version)},
    logLevel: 'warning',
  })
  const [{createSandbox}, {SANDBOX_KEYS}] = await Promise.all([import(join(out, 'server.mjs')), import(join(out, 'keys.mjs'))])
  return {SANDBOX_KEYS, createSandbox}
}

const {SANDBOX_KEYS, createSandbox} = await loadSandbox()

const {values} = parseArgs({
  options: {samples: {default: '300', type: 'string'}, seconds: {default: '3', type: 'string'}, rounds: {default: '3', type: 'string'}},
})
const SAMPLES = Number(values.samples)
const SECONDS = Number(values.seconds)
const ROUNDS = Number(values.rounds)
const LEVELS = [0, 20_000, 200_000]
const V = {'x-ph-api-version': '3.14.0'}
const basic = (key) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`

const percentile = (xs, p) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

const ms = (x) => `${x.toFixed(2).padStart(7)} ms`

async function call(pool, method, path, {body, form, headers = {}} = {}) {
  const res = await pool.request({
    method,
    path,
    headers: {...headers, ...(body ? {'content-type': 'application/json'} : {}), ...(form ? {'content-type': 'application/x-www-form-urlencoded'} : {})},
    body: body ? JSON.stringify(body) : form,
  })
  const text = await res.body.text()
  if (res.statusCode >= 400) throw new Error(`${method} ${path}: ${res.statusCode} ${text}`)
  return {headers: res.headers, json: text && res.headers['content-type']?.includes('json') ? JSON.parse(text) : undefined}
}

async function timed(n, once) {
  const took = []
  for (let i = 0; i < n; i++) {
    const started = performance.now()
    await once(i)
    took.push(performance.now() - started)
  }

  return {p50: percentile(took, 50), p99: percentile(took, 99)}
}

/** Requests per second over `seconds`, `connections` requests in flight at a time. */
async function throughput(origin, path, headers, seconds, connections = 8) {
  const pool = new Pool(origin, {connections})
  const until = performance.now() + seconds * 1000
  let done = 0
  const worker = async () => {
    while (performance.now() < until) {
      const res = await pool.request({method: 'GET', path, headers})
      await res.body.dump()
      if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode}`)
      done++
    }
  }

  const started = performance.now()
  await Promise.all(Array.from({length: connections}, worker))
  const rate = done / ((performance.now() - started) / 1000)
  await pool.close()
  return rate
}

const dir = mkdtempSync(join(tmpdir(), 'opsctl-bench-state-'))
const stateFile = join(dir, 'state.db')
const sb = await createSandbox({port: 0, stateFile, clock: '2026-11-21T02:00:00Z', notice() {}})
const pool = new Pool(sb.origin, {connections: 1})
const bare = Fastify({logger: false})
try {
  const created = await call(pool, 'POST', '/api/users', {
    body: {role: 'patient', email: 'bench@example.com', password: 'bench-pass-1', givenName: 'B', familyName: 'Ench', timeZone: 'Asia/Manila'},
    headers: V,
  })
  const userId = created.json.id
  const cookie = String(created.headers['set-cookie']).split(';')[0]
  const session = {...V, cookie}
  const event = (i) => ({
    date: new Date(Date.parse('2026-11-20T00:00:00Z') + i * 1000).toISOString(),
    medicationId: 'med-salbutamol',
    medicationType: 'rescue',
    source: 'manual',
    symptoms: ['cough'],
  })

  console.log(`sandbox state (SQLite, WAL, synchronous=FULL, on a --state file): ${SAMPLES} sequential samples per row`)
  console.log('NODE_EXTRA_CA_CERTS unset; loopback only')
  console.log('')
  console.log('events stored   events add p50 / p99        checkout create + pay p50 / p99   (seeding)')
  const rows = []
  let stored = 0
  for (const level of LEVELS) {
    let seeding = ''
    if (level > stored) {
      const started = performance.now()
      // the generator takes at most 100,000 events a request
      for (let left = level - stored; left > 0; left -= 100_000) {
        await call(pool, 'POST', '/__sandbox/health/events', {body: {userId, count: Math.min(left, 100_000)}, headers: {authorization: `Bearer ${sb.token}`}})
      }

      seeding = `${((performance.now() - started) / 1000).toFixed(1)} s to seed ${(level - stored).toLocaleString('en')}`
      stored = level
    }

    const add = await timed(SAMPLES, (i) => call(pool, 'POST', `/api/users/${userId}/events`, {body: event(i), headers: session}))
    const pay = await timed(Math.ceil(SAMPLES / 2), async (i) => {
      const {json} = await call(pool, 'POST', '/checkout/v1/checkouts', {
        body: {totalAmount: {value: '100.00', currency: 'PHP'}, items: [{name: 'Tea'}], requestReferenceNumber: `BENCH-${i}`},
        headers: {authorization: basic(SANDBOX_KEYS.publicKey)},
      })
      await call(pool, 'POST', `/checkout/pay/${json.checkoutId}`, {form: 'action=pay&cardNumber=5123456789012346&expiry=12%2F30&cvc=123'})
    })
    stored += SAMPLES
    rows.push({add, level, pay})
    console.log(`${level.toLocaleString('en').padStart(13)}   ${ms(add.p50)} / ${ms(add.p99)}   ${ms(pay.p50)} / ${ms(pay.p99)}          ${seeding}`)
  }

  const query = new URLSearchParams({medicationType: 'rescue', source: 'sensor', startDate: '2026-11-01T00:00:00Z', endDate: '2026-11-15T00:00:00Z'})
  const list = await timed(SAMPLES, () => call(pool, 'GET', `/api/users/me/events?${query}`, {headers: session}))
  console.log('')
  console.log(`events list at ${stored.toLocaleString('en')} events, three filters (medicationType=rescue, source=sensor, 14-day date range), first page:`)
  console.log(`  p50 ${ms(list.p50)}   p99 ${ms(list.p99)}`)

  const ratio = rows.at(-1).add.p50 / rows[0].add.p50
  console.log('')
  console.log(`events add p50 at 200,000 / p50 at 0: ${ratio.toFixed(2)}x (must be <= 2x): ${ratio <= 2 ? 'ok' : 'OVER'}`)
  console.log(`database file: ${(statSync(stateFile).size / 1e6).toFixed(1)} MB`)

  // Authenticated GET (session lookup, user read, validation, headers) next to a bare route with the same JSON.
  const me = (await call(pool, 'GET', '/api/users/me', {headers: session})).json
  bare.get('/api/users/me', async () => me)
  const bareOrigin = await bare.listen({host: '127.0.0.1', port: 0})
  const rates = {bare: [], sandbox: []}
  for (let round = 0; round < ROUNDS; round++) {
    rates.sandbox.push(await throughput(sb.origin, '/api/users/me', session, SECONDS))
    rates.bare.push(await throughput(bareOrigin, '/api/users/me', {}, SECONDS))
  }

  const best = (xs) => Math.max(...xs)
  const share = best(rates.sandbox) / best(rates.bare)
  console.log('')
  console.log(`GET /api/users/me, 8 in flight, best of ${ROUNDS} alternating rounds of ${SECONDS} s each:`)
  console.log(`  sandbox (authenticated)  ${best(rates.sandbox).toFixed(0).padStart(6)} req/s`)
  console.log(`  bare fastify, same JSON  ${best(rates.bare).toFixed(0).padStart(6)} req/s`)
  console.log(`  ratio ${share.toFixed(2)}x (must be >= 0.5x): ${share >= 0.5 ? 'ok' : 'UNDER'}`)
} finally {
  await pool.close()
  await bare.close()
  await sb.close()
  rmSync(dir, {force: true, recursive: true})
}
