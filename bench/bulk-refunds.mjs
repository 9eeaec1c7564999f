#!/usr/bin/env node
/**
 * `refund create --from-file` (issue 24) against a real sandbox process: 1,000 refunds with
 * --concurrency 1, 4 and 8 (rows per second of one run, and the CLI's peak memory), then the plan
 * (--dry-run) of 1,000 and of 10,000 rows, to show that the input is streamed: a file ten times
 * longer barely moves the CLI's memory (each plan also runs under --max-old-space-size=32: V8
 * grows its heap lazily, and a plan that holds the file would not fit there).
 *
 *   npm run build && node bench/bulk-refunds.mjs [rows] [planRows]
 *
 * Talks only to a sandbox it starts on a free loopback port and stops at the end.
 */
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

import {cleanEnv} from './lib/env.mjs'
import {measuredRun} from './lib/measured-run.mjs'
import {moveClock, paidCheckouts} from './lib/paid-checkouts.mjs'
import {startSandboxProcess} from './lib/sandbox.mjs'

const ROOT = resolve(import.meta.dirname, '..')
const BIN = join(ROOT, 'bin/run.js')
const ROWS = Number(process.argv[2] ?? 1000)
const PLAN_ROWS = Number(process.argv[3] ?? 10_000)
const CONCURRENCY = [1, 4, 8]

const runCli = (argv, env, nodeFlags = []) => measuredRun({bin: BIN, cwd: ROOT}, argv, env, nodeFlags)

const sandbox = await startSandboxProcess({bin: BIN, cwd: ROOT, env: cleanEnv({})})
const folder = mkdtempSync(join(tmpdir(), 'opsctl-bench-bulk-'))
const env = cleanEnv({OPSCTL_CONFIG_DIR: folder, OPSCTL_CHECKOUT_URL: `${sandbox.origin}/checkout`})
const csv = (name, ids) => {
  const path = join(folder, name)
  writeFileSync(path, ['checkoutId,amount,currency,reason', ...ids.map((id) => `${id},,,event cancelled`)].join('\n') + '\n')
  return path
}

try {
  const seedStart = performance.now()
  const seeded = Math.max(PLAN_ROWS, ROWS * CONCURRENCY.length)
  const ids = await paidCheckouts({concurrency: 8, count: seeded, origin: sandbox.origin})
  await moveClock({origin: sandbox.origin, token: sandbox.token})
  const seedMs = performance.now() - seedStart

  const plans = []
  for (const rows of [ROWS, PLAN_ROWS]) {
    const run = await runCli(['refund', 'create', '--from-file', csv(`plan-${rows}.csv`, ids.slice(0, rows)), '--dry-run', '--json', '--concurrency', '8'], env)
    if (run.code !== 0) throw new Error(`plan of ${rows} rows: exit ${run.code}: ${run.stderr}`)
    const {plan} = JSON.parse(run.stdout)
    if (plan.toSend !== rows) throw new Error(`plan of ${rows} rows: ${plan.toSend} to send`)
    // V8 grows its heap lazily: the same plan under a 32 MB old space shows what it really keeps.
    const capped = await runCli(['refund', 'create', '--from-file', join(folder, `plan-${rows}.csv`), '--dry-run', '--json', '--concurrency', '8'], env, ['--max-old-space-size=32'])
    if (capped.code !== 0) throw new Error(`plan of ${rows} rows in a 32 MB heap: exit ${capped.code}: ${capped.stderr}`)
    plans.push({rows, seconds: Number((run.ms / 1000).toFixed(2)), rowsPerSecond: Math.round(rows / (run.ms / 1000)), maxRssMb: run.maxRssMb, maxRssMbIn32MbHeap: capped.maxRssMb})
  }

  const sends = []
  for (const [i, concurrency] of CONCURRENCY.entries()) {
    const path = csv(`send-${concurrency}.csv`, ids.slice(i * ROWS, (i + 1) * ROWS))
    const run = await runCli(['refund', 'create', '--from-file', path, '--yes', '--concurrency', String(concurrency)], env)
    if (run.code !== 0) throw new Error(`refunds at concurrency ${concurrency}: exit ${run.code}: ${run.stderr}`)
    if (!run.stderr.includes(`${ROWS} refunds applied`)) throw new Error(`refunds at concurrency ${concurrency}: ${run.stderr}`)
    sends.push({concurrency, rows: ROWS, seconds: Number((run.ms / 1000).toFixed(2)), rowsPerSecond: Math.round(ROWS / (run.ms / 1000)), maxRssMb: run.maxRssMb})
  }

  console.log(JSON.stringify({seeded, seedSeconds: Number((seedMs / 1000).toFixed(1)), plans, sends, node: process.version}, null, 2))
} finally {
  sandbox.child.kill('SIGTERM')
  rmSync(folder, {force: true, recursive: true})
}
