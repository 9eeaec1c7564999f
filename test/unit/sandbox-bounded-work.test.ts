/**
 * No request can make the sandbox exit or stop answering: a state body over the limit is answered
 * 413 naming it (before the body is held whole: V8 strings stop near 512 MiB, and a larger body
 * used to crash the process), and generating events is capped and done in batches, so other
 * requests are answered while a large batch is generated. A real listening sandbox in this process.
 */
import {request} from 'node:http'
import {Readable} from 'node:stream'
import {setTimeout as sleep} from 'node:timers/promises'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {MAX_GENERATED_EVENTS} from '../../src/sandbox/health/seed.js'
import {SANDBOX_STATE_LIMIT_BYTES} from '../../src/services/sandbox-defaults.js'
import {controlHeaders} from '../helpers/control.js'
import {type InProcessSandbox, inProcessSandbox} from '../helpers/sandbox.js'
import {sqliteDb} from '../helpers/sqlite.js'

let sandbox: InProcessSandbox
beforeAll(async () => {
  sandbox = await inProcessSandbox({seed: true})
})
afterAll(() => sandbox?.close())

/** Sends `size` bytes of JSON whitespace to PUT /__sandbox/state, made as they are sent (never held whole); resolves with the answer. */
function putState(size: number): Promise<{status: number; body: string}> {
  const chunk = Buffer.alloc(1024 * 1024, ' ')
  let left = size
  const body = new Readable({
    read() {
      if (left <= 0) return this.push(null)
      const part = left >= chunk.length ? chunk : chunk.subarray(0, left)
      left -= part.length
      this.push(part)
    },
  })
  return new Promise((resolve, reject) => {
    const url = new URL('/__sandbox/state', sandbox.origin)
    const req = request(url, {method: 'PUT', headers: {...controlHeaders(sandbox.running.token), 'content-type': 'application/json', 'content-length': String(size)}}, (res) => {
      let text = ''
      res.on('data', (d) => (text += d))
      res.on('end', () => {
        body.destroy()
        req.destroy()
        resolve({status: res.statusCode ?? 0, body: text})
      })
    })
    // the sandbox may close the connection before all of the body is written: only the answer counts
    req.on('error', (error) => (req.writableEnded ? undefined : reject(error)))
    body.on('error', () => {})
    body.pipe(req)
  })
}

describe('bounded work', () => {
  it('a state body just over the limit is answered 413 naming the limit, and the sandbox answers on', async () => {
    const answer = await putState(SANDBOX_STATE_LIMIT_BYTES + 1)
    expect(answer.status).toBe(413)
    expect(JSON.parse(answer.body).message).toBe(`The body is larger than ${SANDBOX_STATE_LIMIT_BYTES} bytes`)
    expect((await sandbox.control('health')).ok).toBe(true)
  })

  it(`refuses to generate more than ${MAX_GENERATED_EVENTS} events in one request, naming the limit`, async () => {
    const userId = (await sandbox.running.ctx.state.health.users.values())[0].id
    await expect(sandbox.control('health/events', {userId, count: MAX_GENERATED_EVENTS + 1})).rejects.toThrow(
      `at most ${MAX_GENERATED_EVENTS} events per request`,
    )
    expect(await sandbox.running.ctx.state.health.events.count(userId)).toBeLessThan(MAX_GENERATED_EVENTS)
  })

  // Twenty batches rather than the most one request may ask for (100 batches): the point is the
  // answer between batches, and 100,000 inserts outlast the suite's timeout on a loaded machine.
  const MANY_BATCHES = 20_000
  it(`answers another request while it generates ${MANY_BATCHES} events in one request, then has them all`, async () => {
    const userId = (await sandbox.running.ctx.state.health.users.values())[0].id
    const {events} = sandbox.running.ctx.state.health
    const before = await events.count(userId)
    let generated = false
    const generation = sandbox.control('health/events', {userId, count: MANY_BATCHES}).then((answer) => {
      generated = true
      return answer
    })
    // once the first events are written, the generation is under way
    const settled = () => generated
    while (await events.count(userId) === before && !settled()) await sleep(1)
    const asked = performance.now()
    const clock = await sandbox.control('clock')
    const waited = performance.now() - asked
    expect(clock.now).toEqual(expect.any(String))
    expect(generated, `the clock was answered only after the generation (${Math.round(waited)} ms)`).toBe(false)
    expect(await generation).toMatchObject({created: MANY_BATCHES, total: before + MANY_BATCHES})
    expect(await events.count(userId)).toBe(before + MANY_BATCHES)
  })

  it('a generation that fails part way leaves none of its events, and answers 500', async () => {
    const userId = (await sandbox.running.ctx.state.health.users.values())[0].id
    const {events} = sandbox.running.ctx.state.health
    const before = await events.count(userId)
    const db = sqliteDb(sandbox.running.store)
    // the third batch fails, after two were committed
    db.exec(`CREATE TRIGGER full_disk AFTER INSERT ON events WHEN (SELECT count(*) FROM events) > ${before + 2500}
             BEGIN SELECT RAISE(ABORT, 'disk full'); END`)
    const stderr = process.stderr.write
    process.stderr.write = () => true
    try {
      await expect(sandbox.control('health/events', {userId, count: 5000})).rejects.toThrow('500')
    } finally {
      process.stderr.write = stderr
      db.exec('DROP TRIGGER full_disk')
    }

    expect(await events.count(userId)).toBe(before)
  })
})
