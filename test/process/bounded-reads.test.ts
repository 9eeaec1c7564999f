/**
 * Reads bounded in bytes, as real processes (issue 45, item 3): an endless answer ends with exit 6
 * naming --max-body; a binary file or too much stdin for a request body is refused with exit 2
 * and nothing reaches the server; `--paginate`'s one document stops at the limit naming
 * `-o ndjson`, which streams the same pages; `sandbox diff` stops on an endless answer of the
 * side it compares against.
 */
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {createServer, type IncomingMessage, type ServerResponse} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {runCli, type RunOptions} from '../e2e/harness.js'
import {endlessAnswers, LoopbackServers} from '../helpers/loopback-servers.js'

const MIB = 1024 * 1024
let dir: string
const servers = new LoopbackServers()

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'opsctl-bounds-'))
})
afterEach(async () => {
  await servers.closeAll()
  rmSync(dir, {force: true, recursive: true})
})

/** A loopback service that answers every request with `handler`, noting each one. */
async function service(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{url: string; seen: string[]}> {
  const seen: string[] = []
  const url = await servers.listen(
    createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`)
      handler(req, res)
    }),
  )
  return {seen, url}
}

const run = (argv: string[], url: string, options: RunOptions = {}) =>
  runCli(argv, {
    ...options,
    env: {OPSCTL_CHECKOUT_SECRET_KEY: 'sk-bounds-1', OPSCTL_CHECKOUT_URL: `${url}/checkout`, OPSCTL_CONFIG_DIR: dir, OPSCTL_HEALTH_URL: `${url}/health`, ...options.env},
  })

describe('an answer larger than --max-body', () => {
  it('an endless body: exit 6 naming the limit and how to raise it, the connection dropped soon after 1 MiB', async () => {
    const {answers, handler} = endlessAnswers(256 * MIB)
    const {url} = await service(handler)
    const r = await run(['api', 'checkout', 'GET', '/v1/webhooks', '--max-body', '1'], url)
    expect(r.code, r.stderr).toBe(6)
    expect(r.stderr).toContain(`GET /v1/webhooks: the answer from ${url} is larger than 1 MiB, the most opsctl reads of an answer; it was not read`)
    expect(r.stderr).toContain('--max-body <MiB> (or OPSCTL_MAX_BODY)')
    await answers[0].closed
    // the client stopped reading: the server could write only what socket buffers hold past the limit
    expect(answers[0].written).toBeLessThan(33 * MIB)
    expect(r.stdout).toBe('')
  })

  it('OPSCTL_MAX_BODY sets the limit as the flag does', async () => {
    const {answers, handler} = endlessAnswers(256 * MIB)
    const {url} = await service(handler)
    const r = await run(['api', 'checkout', 'GET', '/v1/webhooks'], url, {env: {OPSCTL_MAX_BODY: '2'}})
    expect(r.code, r.stderr).toBe(6)
    expect(r.stderr).toContain('is larger than 2 MiB')
    await answers[0].closed
  })
})

describe('a request body from a file or stdin', () => {
  const answered = (_req: IncomingMessage, res: ServerResponse) => res.writeHead(201, {'content-type': 'application/json'}).end('{"id":"wh_1"}')

  it('-F x=@file with a binary file (a NUL byte): exit 2, nothing sent', async () => {
    const file = join(dir, 'photo.bin')
    writeFileSync(file, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]))
    const {seen, url} = await service(answered)
    const r = await run(['api', 'checkout', 'POST', '/v1/webhooks', '-F', `name=@${file}`], url)
    expect(r.code, r.stderr).toBe(2)
    expect(r.stderr).toContain(`${file} is not text (it holds a NUL byte at byte 8): binary data cannot be sent as JSON text; nothing was sent`)
    expect(seen).toEqual([])
  })

  it('-F x=@file that is not UTF-8 (Latin-1 bytes, no NUL): exit 2, nothing sent', async () => {
    const file = join(dir, 'latin1.txt')
    writeFileSync(file, Buffer.from('caf\u00E9', 'latin1'))
    const {seen, url} = await service(answered)
    const r = await run(['api', 'checkout', 'POST', '/v1/webhooks', '-F', `name=@${file}`], url)
    expect(r.code, r.stderr).toBe(2)
    expect(r.stderr).toContain(`${file} is not text (it holds bytes that are not UTF-8)`)
    expect(seen).toEqual([])
  })

  it('--data @file with binary: exit 2, nothing sent', async () => {
    const file = join(dir, 'body.json')
    writeFileSync(file, Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0]), Buffer.from('"}')]))
    const {seen, url} = await service(answered)
    const r = await run(['api', 'checkout', 'POST', '/v1/webhooks', '--data', `@${file}`], url)
    expect(r.code, r.stderr).toBe(2)
    expect(r.stderr).toContain('is not text (it holds a NUL byte at byte 9)')
    expect(seen).toEqual([])
  })

  it('--input - with more than 16 MiB on stdin: exit 2 naming the limit, nothing sent', async () => {
    const {seen, url} = await service(answered)
    const r = await run(['api', 'checkout', 'POST', '/v1/webhooks', '--input', '-'], url, {input: `{"name": "${'x'.repeat(17 * MIB)}"}`})
    expect(r.code, r.stderr).toBe(2)
    expect(r.stderr).toContain('stdin is larger than 16 MiB, the most opsctl reads from it; nothing was sent')
    expect(seen).toEqual([])
  })

  it('control: a text file under the limit is sent as its text', async () => {
    const file = join(dir, 'name.txt')
    writeFileSync(file, 'CHECKOUT_SUCCESS')
    let body = ''
    const {seen, url} = await service((req, res) => {
      req.on('data', (d) => (body += d))
      req.on('end', () => answered(req, res))
    })
    const r = await run(['api', 'checkout', 'POST', '/v1/webhooks', '-F', `name=@${file}`], url)
    expect(r.code, r.stderr).toBe(0)
    expect(seen).toEqual(['POST /checkout/v1/webhooks'])
    expect(JSON.parse(body)).toEqual({name: 'CHECKOUT_SUCCESS'})
  })
})

describe('--paginate', () => {
  /** Pages of 200 events of ~1 KiB each (~200 KiB a page), with a next token forever. */
  const pages = (req: IncomingMessage, res: ServerResponse) => {
    const token = Number(new URL(req.url!, 'http://x').searchParams.get('pagingToken') ?? 0)
    const events = Array.from({length: 200}, (_, i) => ({id: `ev_${token}_${i}`, note: 'n'.repeat(1000)}))
    res.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify({events, paging: {next: String(token + 1)}}))
  }

  it('the one document stops at --max-body with exit 6 and names -o ndjson; nothing is printed', async () => {
    const {seen, url} = await service(pages)
    const r = await run(['api', 'health', 'GET', '/api/users/me/events', '--paginate', '--max-body', '1'], url)
    expect(r.code, r.stderr).toBe(6)
    expect(r.stderr).toMatch(/--paginate stopped at page \d: the one document of every page would pass 1 MiB \(--max-body\); nothing was printed/)
    expect(r.stderr).toContain('-o ndjson')
    expect(r.stdout).toBe('')
    // it stopped at the limit, not at --max-pages (1,000)
    expect(seen.length).toBeLessThan(10)
  })

  it('-o ndjson streams the same pages past that size, one line a page', async () => {
    const {url} = await service(pages)
    const r = await run(['api', 'health', 'GET', '/api/users/me/events', '--paginate', '--max-body', '1', '-o', 'ndjson', '--max-pages', '12'], url)
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trim().split('\n')
    expect(lines).toHaveLength(12)
    expect(JSON.parse(lines[11]).events[0].id).toBe('ev_11_0')
  })
})

describe('sandbox diff', () => {
  it('an endless answer from the side it compares against ends the run: exit 6 naming --max-body, the connection dropped', async () => {
    const {answers, handler} = endlessAnswers(256 * MIB)
    const {url} = await service(handler)
    const env = {OPSCTL_CONFIG_DIR: dir}
    const added = await runCli(
      ['profile', 'add', 'live', '--env', 'production', '--health-url', `${url}/health`, '--checkout-url', `${url}/checkout`, '--public-key', 'pk-live-1', '--secret-key-stdin'],
      {env, input: 'sk-live-1'},
    )
    expect(added.code, added.stderr).toBe(0)
    const r = await runCli(['sandbox', 'diff', '--against', 'live', '--max-body', '1'], {env})
    expect(r.code, r.stderr).toBe(6)
    expect(r.stderr).toMatch(new RegExp(`: the answer from ${url} is larger than 1 MiB, the most opsctl reads of an answer; it was not read`))
    expect(r.stderr).toContain('--max-body <MiB>')
    await Promise.all(answers.map((a) => a.closed))
    for (const answer of answers) expect(answer.written).toBeLessThan(33 * MIB)
  })
})
