#!/usr/bin/env node
/**
 * `events list me --all --output ndjson` over 20,000 seeded events: checks every line arrives,
 * reports events/s and the CLI's peak memory (process.resourceUsage().maxRSS of the CLI process),
 * next to a one-page run to show that memory stays flat however many events stream.
 *
 *   npm run build && node bench/events-stream.mjs [count]
 *
 * Talks only to a sandbox it starts on a free loopback port and stops at the end.
 */
import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

import {cleanEnv} from './lib/env.mjs'
import {startSandboxProcess} from './lib/sandbox.mjs'

const ROOT = resolve(import.meta.dirname, '..')
const BIN = join(ROOT, 'bin/run.js')
const COUNT = Number(process.argv[2] ?? 20_000)
const PASSWORD = 'bench-pass-7c1d'


async function startSandbox() {
  return startSandboxProcess({bin: BIN, cwd: ROOT, env: cleanEnv({})})
}

/**
 * Runs the CLI as a child process that reports its own peak RSS on exit: Node gives maxRSS for the
 * current process only, so the child loads bin/run.js in-process (same argv as a normal run) and
 * writes `process.resourceUsage().maxRSS` to stderr as it exits.
 */
function runCli(argv, env, {countLines = false, input} = {}) {
  const wrapper = `
    process.argv = [process.argv[0], ${JSON.stringify(BIN)}, ...${JSON.stringify(argv)}];
    process.on('exit', () => process.stderr.write('\\n@@maxrss ' + process.resourceUsage().maxRSS + '\\n'));
    await import(${JSON.stringify(BIN)});
  `
  return new Promise((ok, fail) => {
    const started = performance.now()
    const child = spawn(process.execPath, ['--input-type=module', '-e', wrapper], {cwd: ROOT, env})
    let lines = 0
    let stdout = ''
    let stderr = ''
    let partial = ''
    child.stdout.on('data', (chunk) => {
      if (!countLines) {
        stdout += chunk
        return
      }

      const text = partial + chunk
      const parts = text.split('\n')
      partial = parts.pop()
      lines += parts.length
    })
    child.stderr.on('data', (d) => (stderr += d))
    child.once('error', fail)
    child.once('close', (code) => {
      const ms = performance.now() - started
      const rss = Number(/@@maxrss (\d+)/.exec(stderr)?.[1] ?? 0)
      ok({code, lines: lines + (partial ? 1 : 0), ms, maxRssMb: rss / 1024, stdout, stderr: stderr.replace(/\n@@maxrss \d+\n?/, '')})
    })
    child.stdin.end(input ?? '')
  })
}

const sandbox = await startSandbox()
const configDir = mkdtempSync(join(tmpdir(), 'opsctl-bench-'))
const env = cleanEnv({OPSCTL_CONFIG_DIR: configDir, OPSCTL_HEALTH_URL: sandbox.origin})
try {
  const created = await runCli(
    [
      'users',
      'create',
      '--type',
      'patient',
      '--email',
      'bench@example.com',
      '--given-name',
      'Bench',
      '--family-name',
      'Mark',
      '--password-stdin',
      '--json',
    ],
    env,
    {input: PASSWORD},
  )
  if (created.code !== 0) throw new Error(`users create failed: ${created.stderr}`)
  const userId = JSON.parse(created.stdout).id

  const seedStart = performance.now()
  const res = await fetch(`${sandbox.origin}/__sandbox/health/events`, {
    method: 'POST',
    headers: {authorization: `Bearer ${sandbox.token}`, 'content-type': 'application/json'},
    body: JSON.stringify({userId, count: COUNT}),
  })
  if (!res.ok) throw new Error(`seeding failed: ${res.status} ${await res.text()}`)
  const seedMs = performance.now() - seedStart

  const onePage = await runCli(['events', 'list', 'me', '--output', 'ndjson'], env, {countLines: true})
  const all = await runCli(['events', 'list', 'me', '--all', '--output', 'ndjson'], env, {countLines: true})
  if (all.code !== 0) throw new Error(`events list failed (exit ${all.code}): ${all.stderr}`)

  const ok = all.lines === COUNT
  const report = {
    events: COUNT,
    linesPrinted: all.lines,
    ok,
    seedMs: Math.round(seedMs),
    listMs: Math.round(all.ms),
    eventsPerSecond: Math.round(all.lines / (all.ms / 1000)),
    pages: Math.ceil(COUNT / 50),
    peakRssMb: Math.round(all.maxRssMb),
    onePagePeakRssMb: Math.round(onePage.maxRssMb),
    onePageMs: Math.round(onePage.ms),
  }
  console.log(JSON.stringify(report, null, 2))
  if (!ok) {
    console.error(`expected ${COUNT} lines, got ${all.lines}`)
    process.exitCode = 1
  }
} finally {
  sandbox.child.kill('SIGTERM')
  rmSync(configDir, {force: true, recursive: true})
}
