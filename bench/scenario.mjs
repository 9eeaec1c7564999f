#!/usr/bin/env node
/**
 * Scenario speed: the wall time of `opsctl scenario run` over a 20-step checkout scenario against a
 * sandbox, measured as a user pays it (one real `node bin/run.js scenario run ...` process).
 *
 *   node bench/scenario.mjs [--runs 3] [--json] [--bin other/bin/run.js ...]
 *
 * `--bin` (repeatable) times other builds too, interleaved with this one (a checkout of an older
 * commit, say), for a before/after comparison on a machine whose load changes from minute to minute.
 *
 * Needs `npm run build` first. Children run with NODE_EXTRA_CA_CERTS and NODE_OPTIONS removed (a
 * CA bundle adds ~110 ms to every Node start on these machines and would hide what opsctl itself
 * costs), no proxies, CI=true, and a temporary OPSCTL_CONFIG_DIR that is deleted at the end. The
 * sandbox is a separate process on a free loopback port, stopped at the end.
 */
import {spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {loadavg, tmpdir} from 'node:os'
import {dirname, join, relative, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import {parseArgs} from 'node:util'

import {startSandboxProcess} from './lib/sandbox.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const BIN = join(ROOT, 'bin', 'run.js')

const {values} = parseArgs({
  options: {
    bin: {multiple: true, type: 'string'},
    json: {default: false, type: 'boolean'},
    runs: {default: '3', type: 'string'},
  },
})
const runs = Math.max(1, Number.parseInt(values.runs, 10) || 3)
const bins = [BIN, ...(values.bin ?? []).map((b) => resolve(b))]

const dir = mkdtempSync(join(tmpdir(), 'opsctl-bench-scenario-'))
const env = {}
for (const [k, v] of Object.entries(process.env)) {
  if (v === undefined || k.startsWith('OPSCTL_') || /^(https?_proxy|no_proxy|NODE_EXTRA_CA_CERTS|NODE_OPTIONS)$/i.test(k)) continue
  env[k] = v
}

Object.assign(env, {CI: 'true', NO_COLOR: '1', OPSCTL_CONFIG_DIR: dir})

// 20 steps, each an opsctl command line that sends at least one request; re-runnable against the same sandbox.
const STEPS = `
name: twenty checkout steps
vars: {amount: "12.34"}
steps:
  - run: opsctl checkout create --amount \${amount} --item "Tea:1:\${amount}" --json
    save: {id: checkoutId}
  - run: opsctl checkout get \${id} --json
    expect: {json: {status: {equals: CREATED}}}
  - run: opsctl checkout pay \${id} --json
    expect: {json: {paymentStatus: {equals: PAYMENT_SUCCESS}}}
  - run: opsctl checkout get \${id} --json
  - run: opsctl checkout void \${id} --reason "changed mind" --yes --json
    expect: {json: {voidStatus: {equals: SUCCESS}}}
  - run: opsctl checkout get \${id} --json
    expect: {json: {paymentStatus: {equals: VOIDED}}}
  - run: opsctl checkout create --amount \${amount} --item "Tea:1:\${amount}" --json
    save: {paid: checkoutId}
  - run: opsctl checkout pay \${paid} --json
  - run: opsctl sandbox clock --json
    save: {today: now}
  - run: opsctl sandbox clock --advance 24h --json
  - run: opsctl checkout void \${paid} --reason late --yes --json
    expect: {exit: 5}
  - run: opsctl refund create \${paid} --reason "one cup broken" --amount 5.00 --yes --json
    save: {refundId: refundId}
  - run: opsctl refund create \${paid} --reason again --amount 1.00 --yes --json
    expect: {exit: 5}
  - run: opsctl refund get \${paid} \${refundId} --json
  - run: opsctl refund list \${paid} --json
  - run: opsctl checkout get \${paid} --json
  - run: opsctl webhook list --json
  - run: opsctl checkout get nope-not-a-checkout --json
    expect: {exit: 4}
  - run: opsctl audit list --json
  - run: opsctl sandbox clock --set \${today} --json
`
const file = join(dir, 'twenty-steps.yaml')
writeFileSync(file, STEPS)

async function startSandbox() {
  return startSandboxProcess({bin: BIN, cwd: ROOT, env})
}

const sandbox = await startSandbox()
Object.assign(env, {OPSCTL_CHECKOUT_URL: `${sandbox.origin}/checkout`, OPSCTL_HEALTH_URL: sandbox.origin})

const times = new Map(bins.map((bin) => [bin, []]))
try {
  for (let i = 0; i < runs; i++) {
    for (const bin of bins) {
      const started = performance.now()
      const child = spawnSync(process.execPath, [bin, 'scenario', 'run', file, '--reporter', 'json'], {cwd: ROOT, encoding: 'utf8', env})
      const ms = performance.now() - started
      if (child.status !== 0) throw new Error(`${bin} scenario run exited ${child.status}:\n${child.stdout}\n${child.stderr}`)
      const {results} = JSON.parse(child.stdout)
      if (results.length !== 20) throw new Error(`expected 20 steps, the report has ${results.length}`)
      times.get(bin).push(ms)
    }
  }
} finally {
  sandbox.child.kill('SIGTERM')
  if (!process.env.KEEP) rmSync(dir, {force: true, recursive: true})
}

const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]
const rows = bins.map((bin) => ({
  bin: bin === BIN ? 'opsctl' : relative(process.cwd(), bin) || bin,
  medianMs: Math.round(median(times.get(bin))),
  runsMs: times.get(bin).map(Math.round),
}))
const summary = {load1: loadavg()[0], rows, steps: 20}
if (values.json) console.log(JSON.stringify(summary, null, 2))
else {
  console.log(`scenario run, 20 checkout steps against a sandbox (NODE_EXTRA_CA_CERTS unset, load ${summary.load1.toFixed(2)})`)
  for (const row of rows) console.log(`  ${row.bin}: median ${row.medianMs} ms over ${runs} run(s): ${row.runsMs.join(', ')} ms`)
}
