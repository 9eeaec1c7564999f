/**
 * `sandbox import` checks every record of a state, not just its top level: a record of the wrong
 * shape (a webhook whose id is an object, a user whose password hash is null, an unknown time
 * zone, an amount that is no decimal, a redirect URL that is no http(s) URL, an event date that
 * does not parse) is refused with its path and exit 2, and the sandbox's state is exactly what it
 * was. Before, such a file was accepted and later requests answered 500.
 */
import {readFileSync, truncateSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import SandboxExport from '../../src/commands/sandbox/export.js'
import SandboxImport from '../../src/commands/sandbox/import.js'
import {SANDBOX_STATE_LIMIT_BYTES, SANDBOX_STATE_MAX_DEPTH} from '../../src/services/sandbox-defaults.js'
import {runCommand} from '../helpers/command.js'
import {controlHeaders} from '../helpers/control.js'
import {sandboxPerFile} from '../helpers/sandbox.js'

const per = sandboxPerFile({seed: true, clock: '2026-11-21T02:00:00.000Z'})

type Doc = {version: number; health: Record<string, [string, any][]>; checkout: Record<string, any>}

/** What the sandbox holds, as `sandbox export` writes it. */
async function exported(name: string): Promise<{file: string; text: string}> {
  const file = join(per.user.dir, name)
  const r = await runCommand(SandboxExport, [file])
  expect(r.code, r.stderr).toBe(0)
  return {file, text: readFileSync(file, 'utf8')}
}

describe('sandbox import checks every record', () => {
  it('refuses the first bad record by its path, exit 2, and leaves the state exactly as it was', async () => {
    const before = await exported('before.json')
    const fixture = JSON.parse(before.text) as Doc
    const patient = fixture.health.users.findIndex(([, u]) => u.email === 'patient@demo-clinic.test')
    const webhook = {id: 'wh_1', name: 'CHECKOUT_SUCCESS', callbackUrl: 'https://shop.example/hook', createdAt: '2026-11-20T00:00:00.000Z'}
    const cases: [string, (doc: Doc) => void, string][] = [
      [
        'a webhook whose id is an object',
        (doc) => {
          const hooks = [0, 1, 2].map((i): [string, any] => [`wh_${i}`, {...webhook, id: `wh_${i}`, updatedAt: webhook.createdAt}])
          doc.checkout.webhooks = [...hooks, ['wh_3', {...webhook, id: {}, updatedAt: webhook.createdAt}]]
        },
        'checkout.webhooks[3].id: expected string, received object',
      ],
      ['a user whose password hash is null', (doc) => (doc.health.users[patient][1].password = null), `health.users[${patient}].password: expected object`],
      [
        'a user in an unknown time zone',
        (doc) => (doc.health.users[patient][1].timeZone = 'Mars/Base'),
        `health.users[${patient}].timeZone: expected an IANA time zone`,
      ],
      [
        'an amount that is no decimal',
        // (a JSON number is an amount: the checkout schema takes what the official SDK sends, as a decimal string)
        (doc) => (doc.checkout.checkouts[1][1].totalAmount.value = '15.5'),
        'checkout.checkouts[1].totalAmount.value: expected a decimal amount with exactly two decimals',
      ],
      [
        'a redirect URL the page would send a buyer to that is no http(s) URL',
        (doc) => (doc.checkout.checkouts[0][1].redirectUrl = {success: ['java', 'script:alert(1)'].join('')}),
        'checkout.checkouts[0].redirectUrl.success: expected an http(s) URL',
      ],
      [
        'an event whose date does not parse',
        (doc) => (doc.health.events[0][1][2].date = 'yesterday'),
        'health.events[0][2].date: expected an ISO 8601 date-time',
      ],
    ]
    for (const [what, spoil, path] of cases) {
      const doc = structuredClone(fixture)
      spoil(doc)
      const file = join(per.user.dir, 'spoiled.json')
      writeFileSync(file, JSON.stringify(doc))
      const r = await runCommand(SandboxImport, [file, '--yes'])
      expect([what, r.code]).toEqual([what, 2])
      expect(r.stderr, what).toContain(path)
      expect(r.stderr, what).toContain('state is unchanged')
      expect((await exported('after.json')).text, what).toBe(before.text)
    }
  })

  it('refuses a file over the limit before reading it: exit 2 naming the limit, the state unchanged', async () => {
    const before = await exported('before-big.json')
    const file = join(per.user.dir, 'big.json')
    // sparse: one byte over the limit, without writing (or reading) 256 MiB
    writeFileSync(file, '')
    truncateSync(file, SANDBOX_STATE_LIMIT_BYTES + 1)
    const r = await runCommand(SandboxImport, [file, '--yes'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(`${file} is larger than 256 MiB, the most opsctl reads from it; nothing was sent`)
    expect((await exported('after-big.json')).text).toBe(before.text)
  })

  it('the control route answers 400 naming the path, or the depth limit', async () => {
    const doc = JSON.parse((await exported('route.json')).text) as Doc
    doc.health.users[0][1].id = 42
    const res = await per.sandbox.running.app.inject({method: 'PUT', url: '/__sandbox/state', payload: doc, headers: controlHeaders(per.sandbox.running.token)})
    expect(res.statusCode).toBe(400)
    expect(res.json().message).toBe('Not a valid sandbox state: health.users[0].id: expected string, received number')

    const deep = `{"version": 2, "checkout": {"checkouts": [["c1", ${'{"a": '.repeat(10_000)}1${'}'.repeat(10_000)}]]}}`
    const refused = await per.sandbox.running.app.inject({method: 'PUT', url: '/__sandbox/state', payload: deep, headers: {...controlHeaders(per.sandbox.running.token), 'content-type': 'application/json'}})
    expect(refused.statusCode).toBe(400)
    expect(refused.json().message).toBe(`The body is nested deeper than ${SANDBOX_STATE_MAX_DEPTH} levels`)
  })
})
