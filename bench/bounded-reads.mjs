#!/usr/bin/env node
/**
 * Peak memory of the reads issue 45 found unbounded, for a build of opsctl (this checkout's by
 * default, or `--bin other/bin/run.js` to measure another, such as a build of an older commit):
 *
 * - a large answer: `api checkout GET /v1/webhooks` answered with 100 MiB of JSON;
 * - `api --paginate` over 100 pages of 2 MiB, as one document and with `-o ndjson`;
 * - `sandbox import` of a FIFO whose writer sends 300 MiB of JSON text, and of /dev/zero.
 *
 * Each case is one CLI process; its peak RSS is what it reports as it exits, or the VmHWM last read
 * from /proc when a run that would read forever is stopped at the bound (reported as such).
 * Talks only to loopback servers and a sandbox it starts on free ports and stops at the end.
 *
 *   npm run build && node bench/bounded-reads.mjs [--bin path/to/bin/run.js]
 */
import {execFileSync, spawn} from 'node:child_process'
import {createWriteStream, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {createServer} from 'node:http'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

import {cleanEnv} from './lib/env.mjs'
import {startSandboxProcess} from './lib/sandbox.mjs'

const ROOT = resolve(import.meta.dirname, '..')
const binAt = process.argv.indexOf('--bin')
const BIN = binAt === -1 ? join(ROOT, 'bin/run.js') : resolve(process.argv[binAt + 1])
const MIB = 1024 * 1024
/** A run still going after this long is stopped; /dev/zero, which a CLI without the bound reads forever (about 6 GB in 40 s), after DEVICE_BOUND_S. */
const BOUND_S = 120
const DEVICE_BOUND_S = 8

/**
 * Runs the CLI, its output thrown away: its peak RSS in MiB (VmHWM, read from /proc every 20 ms
 * and once more as it exits), exit code, and whether the bound stopped it.
 */
function measure(argv, env, boundS = BOUND_S) {
  // The wrapper prints the CLI's own maxRSS as it exits; a run killed at the bound has only the polled VmHWM.
  const wrapper = `
    process.argv = [process.argv[0], ${JSON.stringify(BIN)}, ...${JSON.stringify(argv)}];
    process.on('exit', () => process.stderr.write('\\n@@maxrss ' + process.resourceUsage().maxRSS + '\\n'));
    await import(${JSON.stringify(BIN)});
  `
  return new Promise((ok, fail) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', wrapper], {cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe']})
    let stderr = ''
    let polledKiB = 0
    let killed = false
    const poll = setInterval(() => {
      try {
        polledKiB = Math.max(polledKiB, Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0))
      } catch {}
    }, 20)
    const bound = setTimeout(() => {
      killed = true
      child.kill('SIGKILL')
    }, boundS * 1000)
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', fail)
    child.on('close', (code) => {
      clearInterval(poll)
      clearTimeout(bound)
      const reportedKiB = Number(/@@maxrss (\d+)/.exec(stderr)?.[1] ?? 0)
      const error = stderr.split('\n').find((l) => l.startsWith('Error'))
      ok({code: killed ? `killed after ${boundS} s` : String(code), error: error?.slice(0, 100), rssMiB: Math.round(Math.max(reportedKiB, polledKiB) / 1024)})
    })
  })
}

async function listen(handler) {
  const server = createServer(handler)
  await new Promise((r) => server.listen(0, '127.0.0.1', r))
  const close = () => {
    server.closeAllConnections()
    return new Promise((r) => server.close(r))
  }

  return {close, url: `http://127.0.0.1:${server.address().port}`}
}

/** Writes `total` bytes of `chunk` as fast as the reader takes them, stopping when it goes away. */
function pump(res, chunk, total, last = '') {
  let written = 0
  const reader = {gone: false}
  res.once('close', () => (reader.gone = true))
  res.on('error', () => {})
  const go = () => {
    while (!reader.gone && written < total) {
      written += chunk.length
      if (!res.write(chunk)) {
        res.once('drain', go)
        return
      }
    }

    if (!reader.gone) res.end(last)
  }

  go()
}

const dir = mkdtempSync(join(tmpdir(), 'opsctl-bench-bounds-'))
const results = []
let sandbox
const servers = []
try {
  const env = cleanEnv({OPSCTL_CONFIG_DIR: dir})
  const item = JSON.stringify('x'.repeat(1000)) + ','
  const large = await listen((_req, res) => {
    res.writeHead(200, {'content-type': 'application/json'})
    res.write('[')
    pump(res, Buffer.from(item.repeat(64)), 100 * MIB, '"end"]')
  })
  servers.push(large)
  const pageEvents = Array.from({length: 2000}, (_, i) => ({id: `ev_${i}`, note: 'n'.repeat(1000)}))
  const pages = await listen((req, res) => {
    const token = Number(new URL(req.url, 'http://x').searchParams.get('pagingToken') ?? 0)
    res.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify({events: pageEvents, paging: token < 99 ? {next: String(token + 1)} : {}}))
  })
  servers.push(pages)

  const withUrls = (url) => ({...env, OPSCTL_CHECKOUT_SECRET_KEY: 'sk-bench-1', OPSCTL_CHECKOUT_URL: `${url}/checkout`, OPSCTL_HEALTH_URL: `${url}/health`})
  results.push({case: 'large answer (100 MiB)', ...(await measure(['api', 'checkout', 'GET', '/v1/webhooks'], withUrls(large.url)))})
  const paged = ['api', 'health', 'GET', '/api/users/me/events', '--paginate']
  const oneDocument = await measure(paged, withUrls(pages.url))
  const ndjson = await measure([...paged, '-o', 'ndjson'], withUrls(pages.url))
  results.push({case: '--paginate, 100 pages of 2 MiB', ...oneDocument}, {case: '--paginate -o ndjson, same pages', ...ndjson})

  sandbox = await startSandboxProcess({bin: BIN, cwd: ROOT, env: cleanEnv({})})
  const sandboxEnv = {...env, OPSCTL_CHECKOUT_URL: `${sandbox.origin}/checkout`, OPSCTL_HEALTH_URL: `${sandbox.origin}/health`, OPSCTL_SANDBOX_TOKEN: sandbox.token}
  const fifo = join(dir, 'state.fifo')
  execFileSync('mkfifo', [fifo])
  const writer = createWriteStream(fifo)
  writer.on('error', () => {})
  writer.once('open', () => pump(writer, Buffer.alloc(MIB, ' '), 300 * MIB, '{"version": 2}'))
  results.push({case: 'sandbox import FIFO (300 MiB)', ...(await measure(['sandbox', 'import', fifo, '--yes'], sandboxEnv))})
  writer.destroy()
  results.push({case: 'sandbox import /dev/zero', ...(await measure(['sandbox', 'import', '/dev/zero', '--yes'], sandboxEnv, DEVICE_BOUND_S))})
} finally {
  sandbox?.child.kill()
  for (const server of servers) await server.close()
  rmSync(dir, {force: true, recursive: true})
}

console.log(`opsctl at ${BIN}`)
console.table(results.map((r) => ({case: r.case, 'peak RSS (MiB)': r.rssMiB, exit: r.code, error: r.error ?? ''})))
