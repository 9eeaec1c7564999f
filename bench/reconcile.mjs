#!/usr/bin/env node
/**
 * `checkout reconcile` (issue 48) against a real sandbox process: a shop's file of 1,000 paid
 * orders, reconciled with --concurrency 1, 4 and 8: rows per second of one run and the CLI's peak
 * memory (the whole document is kept: the table shows the rows that differ first).
 *
 *   npm run build && node bench/reconcile.mjs [rows]
 *
 * Talks only to a sandbox it starts on a free loopback port and stops at the end.
 */
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

import {cleanEnv} from './lib/env.mjs'
import {measuredRun} from './lib/measured-run.mjs'
import {paidCheckouts} from './lib/paid-checkouts.mjs'
import {startSandboxProcess} from './lib/sandbox.mjs'

const ROOT = resolve(import.meta.dirname, '..')
const BIN = join(ROOT, 'bin/run.js')
const ROWS = Number(process.argv[2] ?? 1000)
const CONCURRENCY = [1, 4, 8]

const sandbox = await startSandboxProcess({bin: BIN, cwd: ROOT, env: cleanEnv({})})
const folder = mkdtempSync(join(tmpdir(), 'opsctl-bench-reconcile-'))
const env = cleanEnv({OPSCTL_CONFIG_DIR: folder, OPSCTL_CHECKOUT_URL: `${sandbox.origin}/checkout`})
try {
  const ids = await paidCheckouts({concurrency: 8, count: ROWS, origin: sandbox.origin})
  const path = join(folder, 'orders.csv')
  writeFileSync(path, ['checkoutId,amount,currency,state', ...ids.map((id) => `${id},100.00,PHP,paid`)].join('\n') + '\n')
  const runs = []
  for (const concurrency of CONCURRENCY) {
    const run = await measuredRun({bin: BIN, cwd: ROOT}, ['checkout', 'reconcile', '--from-file', path, '--json', '--concurrency', String(concurrency)], env)
    if (run.code !== 0) throw new Error(`reconcile at concurrency ${concurrency}: exit ${run.code}: ${run.stderr}`)
    const doc = JSON.parse(run.stdout)
    if (doc.rows.length !== ROWS || doc.rows.some((r) => r.verdict !== 'match')) throw new Error(`reconcile at concurrency ${concurrency}: not every row matched`)
    runs.push({concurrency, rows: ROWS, seconds: Number((run.ms / 1000).toFixed(2)), rowsPerSecond: Math.round(ROWS / (run.ms / 1000)), maxRssMb: run.maxRssMb})
  }

  console.log(JSON.stringify({runs, node: process.version}, null, 2))
} finally {
  sandbox.child.kill('SIGTERM')
  rmSync(folder, {force: true, recursive: true})
}
