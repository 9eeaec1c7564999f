#!/usr/bin/env node
/**
 * The cost of `audit access --since 1h` against the size of the log: a year of reads (1,000,000
 * lines, about 150 MB, in time order) written to a temporary config folder, then the command run
 * as a whole process, against the same command on an empty log and on a log that holds only the
 * last hour (the same lines the answer shows: the cost of the answer alone); median wall time and
 * peak RSS.
 *
 *   node bench/audit-log.mjs [--lines 1000000] [--runs 7] [--bin other/bin/run.js ...]
 *
 * Needs `npm run build`. Children run with NODE_EXTRA_CA_CERTS and NODE_OPTIONS unset; the folder is removed at the end.
 */
import {spawnSync} from 'node:child_process'
import {createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {availableParallelism, loadavg, tmpdir} from 'node:os'
import {dirname, join, relative, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import {parseArgs} from 'node:util'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const {values} = parseArgs({
  options: {bin: {multiple: true, type: 'string'}, lines: {default: '1000000', type: 'string'}, runs: {default: '7', type: 'string'}},
})
const bins = [join(ROOT, 'bin', 'run.js'), ...(values.bin ?? []).map((b) => resolve(b))]
const lines = Number.parseInt(values.lines, 10)
const runs = Math.max(3, Number.parseInt(values.runs, 10) || 7)
const dir = mkdtempSync(join(tmpdir(), 'opsctl-bench-audit-'))
const [full, empty, hour] = [join(dir, 'full'), join(dir, 'empty'), join(dir, 'hour')]
for (const folder of [full, empty, hour]) mkdirSync(folder, {mode: 0o700})
const env = {}
for (const [k, v] of Object.entries(process.env)) {
  if (v === undefined || k.startsWith('OPSCTL_') || /^(https?_proxy|no_proxy|NODE_EXTRA_CA_CERTS|NODE_OPTIONS)$/i.test(k)) continue
  env[k] = v
}

Object.assign(env, {CI: 'true'})
const rssHook = join(dir, 'rss-hook.cjs')
const rssFile = join(dir, 'rss.txt')
writeFileSync(
  rssHook,
  `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(rssFile)}, String(process.resourceUsage().maxRSS / 1024)))\n`,
)

// A year of reads, evenly spaced, ending now.
const now = Date.now()
const year = 365 * 24 * 3_600_000
const out = createWriteStream(join(full, 'access.jsonl'), {mode: 0o600})
const lastHour = []
for (let i = 0; i < lines; i++) {
  const at = now - year + Math.floor((i * year) / lines)
  const time = new Date(at).toISOString()
  const line = JSON.stringify({
    time,
    profile: 'support-desk',
    env: 'production',
    signedInUser: '65f1c0ffee00000000000001',
    user: `65f1c0ffee${String(i).padStart(14, '0')}`,
    command: 'users inspect',
    reason: `ticket SUP-${100_000 + (i % 50_000)} asked by the patient`,
  })
  // a margin of a minute: the command's "1h" is counted a moment later
  if (at >= now - 3_600_000 + 60_000) lastHour.push(line)
  if (!out.write(line + '\n')) await new Promise((ok) => out.once('drain', ok))
}

await new Promise((ok) => out.end(ok))
writeFileSync(join(empty, 'access.jsonl'), '', {mode: 0o600})
writeFileSync(join(hour, 'access.jsonl'), lastHour.map((l) => l + '\n').join(''), {mode: 0o600})
const size = statSync(join(full, 'access.jsonl')).size

function once(bin, configDir, i) {
  const started = performance.now()
  const child = spawnSync(process.execPath, ['--require', rssHook, bin, 'audit', 'access', '--since', '1h', '--json'], {
    encoding: 'utf8',
    env: {...env, OPSCTL_CACHE_DIR: join(dir, `cache-${i}`), OPSCTL_CONFIG_DIR: configDir},
    maxBuffer: 64 * 1024 * 1024,
  })
  const wall = performance.now() - started
  if (child.status !== 0) throw new Error(`exited ${child.status}: ${child.stderr}`)
  return {rss: Number(readFileSync(rssFile, 'utf8')), shown: JSON.parse(child.stdout).entries.length, wall}
}

const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]
try {
  const cases = bins.flatMap((bin, i) => [
    {bin, configDir: empty, i, name: `${i === 0 ? 'opsctl' : relative(process.cwd(), bin)} audit access --since 1h, empty log`},
    {bin, configDir: hour, i, name: `${i === 0 ? 'opsctl' : relative(process.cwd(), bin)} audit access --since 1h, the last hour alone`},
    {bin, configDir: full, i, name: `${i === 0 ? 'opsctl' : relative(process.cwd(), bin)} audit access --since 1h, ${lines} lines`},
  ])
  for (const c of cases) once(c.bin, c.configDir, c.i)
  const samples = cases.map(() => [])
  for (let r = 0; r < runs; r++) cases.forEach((c, k) => samples[k].push(once(c.bin, c.configDir, c.i)))
  process.stdout.write(
    `${lines} lines, ${(size / 1e6).toFixed(0)} MB; ${runs} runs; load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores\n`,
  )
  process.stdout.write('case | wall ms (median) | x empty log | x the last hour alone | peak RSS MB (max) | lines shown\n')
  cases.forEach((c, k) => {
    const wall = median(samples[k].map((s) => s.wall))
    const [empty, alone] = [k - (k % 3), k - (k % 3) + 1].map((b) => median(samples[b].map((s) => s.wall)))
    process.stdout.write(
      `${c.name} | ${wall.toFixed(0)} | ${(wall / empty).toFixed(2)} | ${(wall / alone).toFixed(2)} | ${Math.max(...samples[k].map((s) => s.rss)).toFixed(0)} | ${samples[k][0].shown}\n`,
    )
  })
} finally {
  rmSync(dir, {force: true, recursive: true})
}
