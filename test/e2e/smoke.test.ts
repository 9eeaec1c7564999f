/** `opsctl smoke` in-process (test/helpers/command.ts): with its own embedded sandbox, and against the real sandbox in this process. */
import {XMLParser, XMLValidator} from 'fast-xml-parser'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import CustomizeGet from '../../src/commands/customize/get.js'
import CustomizeSet from '../../src/commands/customize/set.js'
import ProfileAdd from '../../src/commands/profile/add.js'
import Smoke from '../../src/commands/smoke.js'
import WebhookList from '../../src/commands/webhook/list.js'
import WebhookRegister from '../../src/commands/webhook/register.js'
import {checkoutService} from '../../src/services/checkout/operations.js'
import {healthService} from '../../src/services/health/operations.js'
import {isolate, runJson as json, runCommand as run} from '../helpers/command.js'
import {type InProcessSandbox, inProcessSandbox} from '../helpers/sandbox.js'

describe('opsctl smoke', () => {
  it('--sandbox passes every step and writes JUnit XML with one testcase per step', async () => {
    const {cleanup, dir} = isolate()
    try {
      const junit = join(dir, 'out.xml')
      const result = await run(Smoke, ['--sandbox', '--reporter', 'json', '--junit-file', junit])
      expect(result.code, result.stderr).toBe(0)
      const report = JSON.parse(result.stdout)
      const operations = new Set<string>(report.results.map((r: {operation: string}) => r.operation))
      // every operation of both tables ran (the other steps are sandbox actions: paying, a webhook)
      const tables = [...healthService.list, ...checkoutService.list].map((op) => op.id)
      expect(tables.filter((id) => !operations.has(id))).toEqual([])
      expect(report.summary).toEqual({failed: 0, passed: report.results.length, skipped: 0})
      expect(result.stderr.trim().split('\n').at(-1)).toBe(`${report.results.length} passed, 0 failed, 0 skipped`)

      const xml = readFileSync(junit, 'utf8')
      expect(XMLValidator.validate(xml)).toBe(true)
      const doc = new XMLParser({attributeNamePrefix: '', ignoreAttributes: false}).parse(xml)
      const suites = [doc.testsuites.testsuite].flat()
      expect(suites.map((s: {name: string}) => s.name)).toEqual(['health', 'checkout'])
      const cases = suites.flatMap((s: {testcase: unknown}) => [s.testcase].flat())
      expect(cases).toHaveLength(report.results.length)
    } finally {
      cleanup()
    }
  })

  it('follows the output contract: -o csv with --columns picks the report\'s own columns; an unknown one is refused before anything runs', async () => {
    const {cleanup} = isolate()
    try {
      const csv = await run(Smoke, ['--sandbox', '--service', 'health', '--columns', 'name,outcome', '-o', 'csv'])
      expect(csv.code, csv.stderr).toBe(0)
      const lines = csv.stdout.trim().split('\n')
      expect(lines[0]).toBe('name,outcome')
      expect(lines.slice(1).every((l) => /^[^,]+,passed$/.test(l) || /^"[^"]+",passed$/.test(l))).toBe(true)
      expect(csv.stderr.trim().split('\n').at(-1)).toBe(`${lines.length - 1} passed, 0 failed, 0 skipped`)

      const piped = await run(Smoke, ['--sandbox', '--service', 'health'])
      expect(piped.stdout.split('\n')[0]).toBe('suite\tname\toperation\toutcome\tms\tdetail')

      const refused = await run(Smoke, ['--sandbox', '--columns', 'name,nosuch'])
      expect(refused.code).toBe(2)
      expect(refused.stderr.split('\n')[0]).toBe('Error: --columns: unknown column "nosuch"; available: suite, name, operation, outcome, ms, detail')
      expect(refused.stderr).not.toContain('Smoke:')
    } finally {
      cleanup()
    }
  })

  describe('against a running sandbox', () => {
    let sandbox: InProcessSandbox
    beforeAll(async () => {
      sandbox = await inProcessSandbox()
    })
    afterAll(() => sandbox.close())

    it('reports exactly the step the sandbox broke, with its request id, and exits non-zero', async () => {
      const user = sandbox.user()
      try {
        await sandbox.control('faults', {next: [{kind: '500', op: 'updateWebhook'}]})
        const result = await run(Smoke, ['--reporter', 'json'])
        expect(result.code).toBe(1)
        const report = JSON.parse(result.stdout)
        const failed = report.results.filter((r: {outcome: string}) => r.outcome === 'failed')
        expect(failed).toHaveLength(1)
        expect(failed[0]).toMatchObject({operation: 'updateWebhook', requestId: expect.stringMatching(/^[\da-f-]{36}$/)})
        expect(failed[0].message).toContain('HTTP 500')
        expect(result.stderr).toContain(`request id ${failed[0].requestId}`)
        expect(result.stderr.trim().split('\n').at(-1)).toBe(`${report.results.length - 1} passed, 1 failed, 0 skipped`)
      } finally {
        user.cleanup()
      }
    })

    it('on a non-sandbox profile, skips what needs a buyer or the clock and puts back what it changed', async () => {
      const user = sandbox.user()
      const env = {OPSCTL_CHECKOUT_URL: undefined, OPSCTL_HEALTH_URL: undefined}
      try {
        const add = await run(
          ProfileAdd,
          [
            'staging',
            '--env',
            'production',
            '--health-url',
            sandbox.healthUrl,
            '--checkout-url',
            sandbox.checkoutUrl,
            '--public-key',
            sandbox.publicKey,
            '--secret-key-stdin',
            '--use',
          ],
          {env, stdin: sandbox.secretKey},
        )
        expect(add.code, add.stderr).toBe(0)
        const custom = [
          '--logo-url',
          'https://shop.example/logo.png',
          '--icon-url',
          'https://shop.example/i.ico',
          '--apple-touch-icon-url',
          'https://shop.example/t.png',
          '--title',
          'Real Shop',
          '--color',
          '#112233',
        ]
        expect((await run(CustomizeSet, [...custom], {env})).code).toBe(0)
        const hook = await json(WebhookRegister, ['--name', 'CHECKOUT_SUCCESS', '--url', 'https://shop.example/hooks/success'], {
          env,
        })

        const result = await run(Smoke, ['--service', 'checkout', '--reporter', 'json'], {env})
        expect(result.code, result.stderr).toBe(0)
        const report = JSON.parse(result.stdout)
        const skipped = report.results
          .filter((r: {outcome: string}) => r.outcome === 'skipped')
          .map((r: {operation: string}) => r.operation)
        expect(skipped).toEqual([
          'hosted payment page',
          'CHECKOUT_SUCCESS webhook',
          'voidCheckout',
          'refundCheckout',
          'listRefunds',
          'getRefund',
        ])
        expect(report.summary.failed).toBe(0)

        const after = await json(CustomizeGet, [], {env})
        expect(after).toMatchObject({colorScheme: '#112233', customTitle: 'Real Shop'})
        const hooks = await json(WebhookList, [], {env})
        const list = Array.isArray(hooks) ? hooks : hooks.webhooks
        expect(list.map((w: {callbackUrl: string; id: string; name: string}) => [w.id, w.name, w.callbackUrl])).toEqual([
          [hook.id, 'CHECKOUT_SUCCESS', 'https://shop.example/hooks/success'],
        ])
      } finally {
        user.cleanup()
      }
    })
  })
})
