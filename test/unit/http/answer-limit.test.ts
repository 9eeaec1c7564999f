/**
 * Every answer is read up to a limit counted as bytes arrive (src/http/answer-limit.ts): an
 * endless body from a loopback server, on either carrier (node:http for plain http, undici for
 * https and proxies), ends with the error naming the limit and --max-body, exit 6, the client
 * having dropped the connection soon after the limit (the server could write only what socket
 * buffers hold past it); a content-length over the limit is refused before the body is read.
 */
import {createServer} from 'node:http'
import {Agent} from 'undici'
import {afterEach, describe, expect, it} from 'vitest'

import {requestFlags} from '../../../src/cli/flags.js'
import {MIB} from '../../../src/errors.js'
import {AnswerTooLargeError, DEFAULT_MAX_BODY_MIB} from '../../../src/http/answer-limit.js'
import {HttpTransport} from '../../../src/http/http-transport.js'
import {sendOn} from '../../../src/http/undici-carrier.js'
import {endlessAnswers, LoopbackServers} from '../../helpers/loopback-servers.js'

const servers = new LoopbackServers()
const transport = new HttpTransport({maxBodyBytes: MIB, pool: 'private'})
afterEach(async () => {
  await transport.close()
  await servers.closeAll()
})

/** Without a limit the client would read all of it: 256 MiB. */
const ENDLESS = 256 * MIB
/** What the server may have written when the client stops at 1 MiB: the limit and what loopback socket buffers hold. */
const SLACK = 32 * MIB

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the request to fail')
    },
    (error: unknown) => error,
  )
}

describe('an answer over the limit', () => {
  it('node:http: an endless body stops at 1 MiB with exit 6 naming the limit and --max-body; the connection is dropped', async () => {
    const {answers, handler} = endlessAnswers(ENDLESS)
    const url = await servers.listen(createServer(handler))
    const error = await rejection(transport.send({idempotent: true, label: 'listWebhooks', method: 'GET', url: new URL(`${url}/v1/webhooks`)}))
    expect(error).toBeInstanceOf(AnswerTooLargeError)
    expect((error as AnswerTooLargeError).exitCode).toBe(6)
    expect((error as Error).message).toBe(`listWebhooks: the answer from ${url} is larger than 1 MiB, the most opsctl reads of an answer; it was not read`)
    expect((error as AnswerTooLargeError).suggestions.join('\n')).toContain('--max-body <MiB> (or OPSCTL_MAX_BODY)')
    await answers[0].closed
    expect(answers[0].written).toBeLessThan(MIB + SLACK)
    // not retried, though the request was safe to repeat: the same answer would come again
    expect(answers).toHaveLength(1)
  })

  it('a change that got such an answer may have been applied, and says so', async () => {
    const {answers, handler} = endlessAnswers(ENDLESS)
    const url = await servers.listen(createServer(handler))
    const error = await rejection(transport.send({body: {json: {}}, idempotent: false, label: 'createRefund', method: 'POST', url: new URL(`${url}/r`)}))
    expect((error as Error).message).toMatch(/it was not read, and the request may have been applied$/)
    expect((error as AnswerTooLargeError).outcomeUnknown).toBe(true)
    await answers[0].closed
  })

  it('undici: an endless body stops at the limit too, and the connection is dropped', async () => {
    const {answers, handler} = endlessAnswers(ENDLESS)
    const url = await servers.listen(createServer(handler))
    const agent = new Agent()
    try {
      const error = await rejection(sendOn(agent, {headers: {}, maxBodyBytes: MIB, method: 'GET', signal: new AbortController().signal, url: new URL(url)}))
      expect((error as {code?: string}).code).toBe('ERR_ANSWER_TOO_LARGE')
      await answers[0].closed
      expect(answers[0].written).toBeLessThan(MIB + SLACK)
    } finally {
      await agent.close()
    }
  })

  it('a content-length over the limit is refused before the body is read', async () => {
    const closed: Promise<unknown>[] = []
    const url = await servers.listen(
      createServer((_req, res) => {
        closed.push(new Promise((resolve) => res.once('close', resolve)))
        // headers only: the body never comes, so only the announced length can end the wait
        res.writeHead(200, {'content-length': String(100 * MIB)})
        res.flushHeaders()
      }),
    )
    const error = await rejection(transport.send({idempotent: true, label: 'getCheckout', method: 'GET', url: new URL(url)}))
    expect(error).toBeInstanceOf(AnswerTooLargeError)
    await Promise.all(closed)
  })

  it('an answer of exactly the limit is read whole', async () => {
    const body = 'x'.repeat(MIB)
    const url = await servers.listen(createServer((_req, res) => res.end(body)))
    expect((await transport.send({idempotent: true, label: 'x', method: 'GET', url: new URL(url)})).text).toBe(body)
  })
})

describe('--max-body', () => {
  it('defaults to the limit the transport applies without it', () => {
    expect(requestFlags['max-body'].default).toBe(DEFAULT_MAX_BODY_MIB)
  })
})
