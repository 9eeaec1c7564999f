/**
 * A profile named on the command line is the one used (real processes), with a CI job's OPSCTL_*
 * variables pointing at another sandbox: `-p other` goes to other's URLs with other's keys, the
 * same profile through OPSCTL_PROFILE takes the overrides, and `sandbox diff --against vendor`
 * compares with vendor's service, not with the environment's sandbox (which would be a false pass).
 */
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {LoopbackServers} from '../helpers/loopback-servers.js'
import {runCli, type Sandbox, startSandbox} from './harness.js'

describe('a named profile is the one used, whatever OPSCTL_* says (real processes)', () => {
  let envSandbox: Sandbox
  let other: Sandbox
  let configDir: string
  let env: Record<string, string>
  const servers = new LoopbackServers()
  const vendorSeen: string[] = []
  let vendor: string

  beforeAll(async () => {
    ;[envSandbox, other] = await Promise.all([startSandbox(), startSandbox()])
    // a service that is not our sandbox: it notes each request and answers 404 in JSON
    vendor = await servers.listen(
      createServer((req, res) => {
        vendorSeen.push(`${req.method} ${req.url}`)
        res.writeHead(404, {'content-type': 'application/json'}).end('{"error":"NotFound","message":"no such route"}')
      }),
    )
    configDir = mkdtempSync(join(tmpdir(), 'opsctl-named-profile-'))
    env = {
      OPSCTL_CHECKOUT_PUBLIC_KEY: envSandbox.publicKey,
      OPSCTL_CHECKOUT_SECRET_KEY: envSandbox.secretKey,
      OPSCTL_CHECKOUT_URL: envSandbox.checkoutUrl,
      OPSCTL_CONFIG_DIR: configDir,
      OPSCTL_HEALTH_URL: envSandbox.healthUrl,
    }
    for (const [name, health, checkout, keys] of [
      ['other', other.healthUrl, other.checkoutUrl, other],
      ['vendor', vendor, `${vendor}/checkout`, other],
    ] as const) {
      const add = await run(
        [
          'profile',
          'add',
          name,
          '--env',
          'sandbox',
          '--health-url',
          health,
          '--checkout-url',
          checkout,
          '--public-key',
          keys.publicKey,
          '--secret-key-stdin',
        ],
        {input: keys.secretKey},
      )
      expect(add.code, add.stderr).toBe(0)
    }
  })
  afterAll(async () => {
    await Promise.all([envSandbox?.stop(), other?.stop(), servers.closeAll()])
    rmSync(configDir, {force: true, recursive: true})
  })

  const run = (argv: string[], options: {env?: Record<string, string>; input?: string} = {}) =>
    runCli(argv, {env: {...env, ...options.env}, input: options.input})
  const webhooks = async (sandbox: Sandbox) =>
    ((await sandbox.control('state')).checkout.webhooks as [string, {callbackUrl: string}][]).map(([, w]) => w.callbackUrl)

  it('-p other registers on other; the same name from OPSCTL_PROFILE, or no name, takes the environment overrides', async () => {
    const named = await run([
      'webhook',
      'register',
      '-p',
      'other',
      '--name',
      'CHECKOUT_SUCCESS',
      '--url',
      'https://shop.example/hooks/named',
    ])
    expect(named.code, named.stderr).toBe(0)
    const long = await run([
      'webhook',
      'register',
      '--profile=other',
      '--name',
      'CHECKOUT_FAILURE',
      '--url',
      'https://shop.example/hooks/long',
    ])
    expect(long.code, long.stderr).toBe(0)
    const fromVariable = await run(['webhook', 'register', '--name', 'CHECKOUT_SUCCESS', '--url', 'https://shop.example/hooks/from-env'], {
      env: {OPSCTL_PROFILE: 'other'},
    })
    expect(fromVariable.code, fromVariable.stderr).toBe(0)

    expect((await webhooks(other)).sort()).toEqual(['https://shop.example/hooks/long', 'https://shop.example/hooks/named'])
    expect(await webhooks(envSandbox)).toEqual(['https://shop.example/hooks/from-env'])
  })

  it('scenario run -p other: its steps use other as stored too', async () => {
    const file = join(configDir, 'register.yaml')
    writeFileSync(file, 'steps:\n  - run: opsctl webhook register --name CHECKOUT_DROPOUT --url https://shop.example/hooks/scenario\n')
    const r = await run(['scenario', 'run', '-p', 'other', file])
    expect(r.code, r.stderr).toBe(0)
    expect(await webhooks(other)).toContain('https://shop.example/hooks/scenario')
    expect(await webhooks(envSandbox)).not.toContain('https://shop.example/hooks/scenario')
  })

  it('sandbox diff --against vendor probes vendor, not the environment sandbox: its differences, exit 1', async () => {
    const before = vendorSeen.length
    const diff = await run(['sandbox', 'diff', '--against', 'vendor', '--service', 'checkout', '--json'])
    expect(vendorSeen.length, diff.stderr).toBeGreaterThan(before)
    expect(vendorSeen.slice(before).filter((line) => line.startsWith('GET /checkout/v1/')).length).toBeGreaterThan(0)
    expect(diff.code, diff.stderr).toBe(1)
    expect(JSON.parse(diff.stdout).differences.length).toBeGreaterThan(0)
  })
})
