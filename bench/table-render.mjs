#!/usr/bin/env node
/**
 * `events list me --all` over 20,000 seeded events in the default format, in a pseudo-terminal
 * (`script -qec`, 120 columns, so it is the aligned table) and piped (tab-separated), next to
 * `--output ndjson`: wall time, the CLI's CPU time (user + system) and peak memory (its own
 * process.resourceUsage()). The widest line is measured on stdout's lines as shown (after a `\r`).
 *
 *   npm run build && node bench/table-render.mjs [count]
 *
 * Talks only to a sandbox it starts on a free loopback port and stops at the end.
 * NODE_EXTRA_CA_CERTS is unset for every child (no CA bundle is read at start).
 */
import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

import {cleanEnv} from './lib/env.mjs'
import {startSandboxProcess} from './lib/sandbox.mjs'

const ROOT = resolve(import.meta.dirname, '..')
const BIN = join(ROOT, 'bin/run.js')
const COUNT = Number(process.argv[2] ?? 20_000)
const LIMIT_MS = 3000
/** CPU time of the CLI for the whole listing (issue 21: 20,000 rows in a pseudo-terminal within 2 s of CPU). */
const CPU_LIMIT_MS = 2000


async function startSandbox() {
  return startSandboxProcess({bin: BIN, cwd: ROOT, env: cleanEnv({})})
}

/** Runs the CLI in-process inside a small wrapper that records its peak RSS in a file as it exits. */
function run(argv, env, {terminal}) {
  const dir = mkdtempSync(join(tmpdir(), 'opsctl-bench-run-'))
  const wrapper = join(dir, 'run.mjs')
  const rssFile = join(dir, 'rss')
  writeFileSync(
    wrapper,
    `process.argv = [process.argv[0], ${JSON.stringify(BIN)}, ...${JSON.stringify(argv)}];
     process.on('exit', () => { const u = process.resourceUsage(); require('node:fs').writeFileSync(${JSON.stringify(rssFile)}, JSON.stringify({cpuMs: Math.round((u.userCPUTime + u.systemCPUTime) / 1000), maxRSS: u.maxRSS})) });
     import {createRequire} from 'node:module'; const require = createRequire(import.meta.url);
     await import(${JSON.stringify(BIN)});\n`,
  )
  const quoted = (s) => `'${s.replaceAll("'", "'\\''")}'`
  const [cmd, args] = terminal
    ? ['script', ['-qec', `stty cols 120; ${quoted(process.execPath)} ${quoted(wrapper)} 2>/dev/null`, '/dev/null']]
    : [process.execPath, [wrapper]]
  return new Promise((ok, fail) => {
    const started = performance.now()
    const child = spawn(cmd, args, {cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe']})
    let lines = 0
    let widest = 0
    let partial = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => {
      const parts = (partial + chunk).split('\n')
      partial = parts.pop()
      lines += parts.length
      for (const p of parts) widest = Math.max(widest, p.replace(/\r$/, '').split('\r').at(-1).length)
    })
    child.stderr.on('data', (d) => (stderr += d))
    child.once('error', fail)
    child.once('close', (code) => {
      const ms = performance.now() - started
      const {cpuMs, maxRSS} = JSON.parse(readFileSync(rssFile, 'utf8'))
      rmSync(dir, {force: true, recursive: true})
      ok({code, cpuMs, lines: lines + (partial ? 1 : 0), maxRssMb: Math.round(maxRSS / 1024), ms: Math.round(ms), stderr, widest})
    })
  })
}

const sandbox = await startSandbox()
const configDir = mkdtempSync(join(tmpdir(), 'opsctl-bench-'))
const env = cleanEnv({OPSCTL_CONFIG_DIR: configDir, OPSCTL_HEALTH_URL: sandbox.origin})
try {
  const create = spawn(process.execPath, [BIN, 'users', 'create', '--type', 'patient', '--email', 'table@example.com', '--given-name', 'T', '--family-name', 'R', '--password-stdin', '--json'], {cwd: ROOT, env})
  let out = ''
  create.stdout.on('data', (d) => (out += d))
  create.stdin.end('bench-pass-7c1d')
  await new Promise((ok) => create.once('close', ok))
  const userId = JSON.parse(out).id
  const seeded = await fetch(`${sandbox.origin}/__sandbox/health/events`, {
    body: JSON.stringify({count: COUNT, userId}),
    headers: {authorization: `Bearer ${sandbox.token}`, 'content-type': 'application/json'},
    method: 'POST',
  })
  if (!seeded.ok) throw new Error(`seeding failed: ${seeded.status} ${await seeded.text()}`)

  const results = {
    table: await run(['events', 'list', 'me', '--all'], env, {terminal: true}),
    tsv: await run(['events', 'list', 'me', '--all'], env, {terminal: false}),
    ndjson: await run(['events', 'list', 'me', '--all', '--output', 'ndjson'], env, {terminal: false}),
  }
  const report = {events: COUNT, limitMs: LIMIT_MS, cpuLimitMs: CPU_LIMIT_MS}
  for (const [name, r] of Object.entries(results)) {
    if (r.code !== 0) throw new Error(`${name} failed (exit ${r.code}): ${r.stderr}`)
    report[name] = {ms: r.ms, cpuMs: r.cpuMs, peakRssMb: r.maxRssMb, lines: r.lines, widestLine: r.widest, underLimit: r.ms < LIMIT_MS && r.cpuMs < CPU_LIMIT_MS}
  }

  console.log(JSON.stringify(report, null, 2))
  if (!Object.values(results).every((r) => r.ms < LIMIT_MS && r.cpuMs < CPU_LIMIT_MS)) process.exitCode = 1
} finally {
  sandbox.child.kill('SIGTERM')
  rmSync(configDir, {force: true, recursive: true})
}
