import {readFileSync} from 'node:fs'
/**
 * A request that gets no answer says why, and the next step fits the cause: start the sandbox
 * (with its port) only for a loopback URL, the CA bundle for a certificate Node does not trust, the
 * host name for a DNS failure; a 404 names the list that has the ids. A refused loopback
 * connection is not retried: nothing will be listening a second later.
 */
import {createServer as createHttpServer} from 'node:http'
import {createServer as createHttpsServer} from 'node:https'
import {createServer, type Server} from 'node:net'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {withHints} from '../../src/cli/hints.js'
import CheckoutGet from '../../src/commands/checkout/get.js'
import WebhookList from '../../src/commands/webhook/list.js'
import {networkError} from '../../src/http/network-error.js'
import {ROOT, runCommand} from '../helpers/command.js'
import {sandboxPerFile} from '../helpers/sandbox.js'

// The 404 test reads from a real sandbox; its user (config folder and URLs) is in place for the whole file.
sandboxPerFile()

/** A loopback port that was free a moment ago and has no listener now. */
async function closedPort(): Promise<number> {
  const server: Server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as {port: number}
  await new Promise((resolve) => server.close(resolve))
  return port
}

function shown(code: string, url: string, idempotent = true) {
  const error = withHints(networkError(Object.assign(new Error(code), {code}), {idempotent, label: 'getCheckout', timeoutMs: 30_000, url: new URL(url)}))
  return {message: error.message, suggestions: error.suggestions}
}

describe('network failures by cause', () => {
  it('a refused loopback port: start the sandbox on that port; not retried', async () => {
    const port = await closedPort()
    const r = await runCommand(WebhookList, ['--verbose'], {env: {OPSCTL_CHECKOUT_URL: `http://127.0.0.1:${port}/checkout`}})
    expect(r.code).toBe(7)
    const errorLines = r.stderr.slice(r.stderr.indexOf('Error:')).trim().split('\n')
    expect(errorLines).toEqual([`Error: listWebhooks: http://127.0.0.1:${port} refused the connection`, `  Try this: Start one: opsctl sandbox start --port ${port}`])
    expect(r.stderr).not.toContain('retrying')
  })

  it('--verbose shows each retry of a request that can be retried (a 503 once, then an answer)', async () => {
    let answered = 0
    const server = createHttpServer((_req, res) => {
      answered++
      res.writeHead(answered === 1 ? 503 : 200, {'content-type': 'application/json', 'retry-after': '0'}).end('[]')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const {port} = server.address() as {port: number}
      const r = await runCommand(WebhookList, ['--verbose', '--json'], {env: {OPSCTL_CHECKOUT_URL: `http://127.0.0.1:${port}/checkout`}})
      expect(r.code, r.stderr).toBe(0)
      expect(r.stderr).toMatch(/^~ listWebhooks: 503, retrying in \d+ ms$/m)
      expect(answered).toBe(2)
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it('a refused or unreachable production URL never suggests the sandbox', () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT']) {
      const {suggestions} = shown(code, 'https://pay.example.com/checkout')
      expect(suggestions.join('\n'), code).not.toContain('sandbox')
      expect(suggestions.join('\n'), code).toContain('https://pay.example.com is reachable')
    }
  })

  it('a DNS failure names the host', () => {
    expect(shown('ENOTFOUND', 'https://pay.exmple.com/checkout')).toEqual({
      message: 'getCheckout: https://pay.exmple.com could not be reached: no address found for the host name pay.exmple.com',
      suggestions: ['Check the host name pay.exmple.com in the profile (opsctl profile show)'],
    })
  })

  describe('a loopback https server with a self-signed certificate', () => {
    const server = createHttpsServer(
      {cert: readFileSync(join(ROOT, 'test/fixtures/tls/self-signed.crt')), key: readFileSync(join(ROOT, 'test/fixtures/tls/self-signed.key'))},
      (_req, res) => res.end('{}'),
    )
    beforeAll(async () => {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    })
    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve))
    })

    it('names the certificate problem and the CA bundle fix, not the sandbox', async () => {
      const {port} = server.address() as {port: number}
      const r = await runCommand(WebhookList, [], {env: {NODE_EXTRA_CA_CERTS: undefined, OPSCTL_CHECKOUT_URL: `https://127.0.0.1:${port}/checkout`}})
      expect(r.code).toBe(7)
      expect(r.stderr.trim().split('\n')).toEqual([
        `Error: listWebhooks: https://127.0.0.1:${port} answered with a TLS certificate that is not trusted (DEPTH_ZERO_SELF_SIGNED_CERT)`,
        `  Try this: If 127.0.0.1:${port} is signed by a company or private certificate authority, point NODE_EXTRA_CA_CERTS at its PEM file and run again`,
      ])
    })
  })

  it('a 404 on a get names the list command', async () => {
    const r = await runCommand(CheckoutGet, ['chk_no_such_checkout'])
    expect(r.code).toBe(4)
    expect(r.stderr).toContain('Try this: See the checkouts created from this machine: opsctl checkout list')
  })
})
