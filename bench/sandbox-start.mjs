#!/usr/bin/env node
/**
 * How fast `opsctl sandbox start --port 0` is ready, and how fast it stops: for each run, the time
 * from spawning the process to its "listening" line, to the first 200 from /__sandbox/health, and
 * from SIGINT to exit (with the exit code). Prints medians over --runs (default 10).
 *
 * Children run with NODE_EXTRA_CA_CERTS unset (it adds ~110 ms to every Node 20 start on these
 * machines), and a temporary OPSCTL_CONFIG_DIR (where each sandbox writes its control token file),
 * deleted at the end. Loopback only. Needs `npm run build` first.
 */
import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {createInterface} from 'node:readline'
import {fileURLToPath} from 'node:url'
import {parseArgs} from 'node:util'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const {values} = parseArgs({options: {runs: {default: '10', type: 'string'}}})
const runs = Math.max(3, Number.parseInt(values.runs, 10) || 10)

const env = {}
for (const [k, v] of Object.entries(process.env)) {
  if (v !== undefined && !k.startsWith('OPSCTL_') && !/^(https?_proxy|no_proxy|NODE_EXTRA_CA_CERTS|NODE_OPTIONS)$/i.test(k)) env[k] = v
}

env.OPSCTL_CONFIG_DIR = mkdtempSync(join(tmpdir(), 'opsctl-bench-'))
process.once('exit', () => rmSync(env.OPSCTL_CONFIG_DIR, {force: true, recursive: true}))

async function once() {
  const started = performance.now()
  const child = spawn(process.execPath, [join(ROOT, 'bin/run.js'), 'sandbox', 'start', '--port', '0', '--json'], {env: {...env, CI: 'true'}})
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)))
  const line = await new Promise((resolve, reject) => {
    createInterface({input: child.stdout}).once('line', resolve)
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)))
  })
  const listening = performance.now() - started
  const {origin} = JSON.parse(line)
  let res
  do res = await fetch(`${origin}/__sandbox/health`).catch(() => undefined)
  while (!res || res.status !== 200)
  await res.text()
  const healthy = performance.now() - started
  const stopping = performance.now()
  child.kill('SIGINT')
  const code = await exited
  return {code, healthy, listening, stop: performance.now() - stopping}
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const results = []
for (let i = 0; i < runs; i++) results.push(await once())

const fmt = (ms) => `${ms.toFixed(0).padStart(5)} ms`
console.log(`opsctl sandbox start --port 0: ${runs} runs, medians (NODE_EXTRA_CA_CERTS unset)`)
console.log(`  spawn -> listening line      ${fmt(median(results.map((r) => r.listening)))}`)
console.log(`  spawn -> /__sandbox/health   ${fmt(median(results.map((r) => r.healthy)))}   (max ${fmt(Math.max(...results.map((r) => r.healthy)))})`)
console.log(`  SIGINT -> exit               ${fmt(median(results.map((r) => r.stop)))}`)
console.log(`  exit codes                   ${[...new Set(results.map((r) => r.code))].join(', ')}`)
