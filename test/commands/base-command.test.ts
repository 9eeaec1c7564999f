/**
 * What every command inherits from BaseCommand, through two small commands defined here: consent
 * for destructive changes, the production announcement, output formats, and errors.
 */
import {Args} from '@oclif/core'
import {readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {BaseCommand} from '../../src/cli/base-command.js'
import {changeFlags} from '../../src/cli/flags.js'
import {checkoutOps} from '../../src/services/checkout/operations.js'
import {isolatedWithMockedServices, runCommand, useProduction} from '../helpers/command.js'

/** Consent comes from the row: the command only names it. */
class DeleteWebhook extends BaseCommand<typeof DeleteWebhook> {
  static override args = {webhookId: Args.string({required: true})}
  static override baseFlags = changeFlags
  static override changes = checkoutOps.deleteWebhook
  static override description = 'test: a destructive change'

  protected async execute(): Promise<unknown> {
    const client = await this.client('checkout')
    await client.call(checkoutOps.deleteWebhook, {params: {webhookId: this.args.webhookId}})
    return {deleted: this.args.webhookId}
  }
}

class ListThings extends BaseCommand<typeof ListThings> {
  static override description = 'test: a listing'
  static override view = {columns: ['id', 'name'], fields: ['nested', 'nested.n']}

  protected async execute(): Promise<unknown> {
    const rows = [
      {id: 'a', name: 'Alpha, Inc.', nested: {n: 1}},
      {id: 'b', name: 'Beta', nested: {n: 2}},
    ]
    this.note('listed 2')
    return rows
  }
}

class Explode extends BaseCommand<typeof Explode> {
  static override description = 'test: a bug'

  protected async execute(): Promise<unknown> {
    const {profile} = await this.profile()
    throw new TypeError(`cannot read ${profile.checkout.secretKey}`)
  }
}

class StoreSession extends BaseCommand<typeof StoreSession> {
  static override description = 'test: changes the profile like users login does, without saving'

  protected async execute(): Promise<unknown> {
    const {name, store} = await this.profile()
    store.update(name, (p) => ({...p, health: {...p.health, session: 'sess-Kk11Ll22Mm33', userId: 'u-7'}}))
    if (process.env.TEST_BREAK_CONFIG_DIR) {
      rmSync(harness.env.dir, {force: true, recursive: true})
      writeFileSync(harness.env.dir, 'not a folder')
    }

    return {userId: 'u-7'}
  }
}

const harness = isolatedWithMockedServices()
const calls = () => harness.services.agent.getCallHistory()?.calls() ?? []

describe('destructive changes', () => {
  it('without a terminal and without --yes: exit 2, nothing sent', async () => {
    const r = await runCommand(DeleteWebhook, ['w-1'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('Delete webhook w-1 is destructive and needs confirmation; pass --yes')
    expect(calls()).toHaveLength(0)
  })

  it('with --yes: sent once, and the result printed under --json', async () => {
    harness.services.agent.get('http://127.0.0.1:4010').intercept({path: '/checkout/v1/webhooks/w-1', method: 'DELETE'}).reply(200, {id: 'w-1'})
    const r = await runCommand(DeleteWebhook, ['w-1', '--yes', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({deleted: 'w-1'})
    expect(calls()).toHaveLength(1)
  })

  it('on a production profile, the profile, env and base URL are announced on stderr first', async () => {
    await useProduction(harness.env.dir, 'sk-live-Rr12Tt34Yy56')
    harness.services.agent.get('https://pay.example.com').intercept({path: '/checkout/v1/webhooks/w-1', method: 'DELETE'}).reply(200, {id: 'w-1'})
    const r = await runCommand(DeleteWebhook, ['w-1', '-y'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain('Profile prod (production) -> https://pay.example.com/checkout')
    expect(r.stdout).not.toContain('production')
    const refused = await runCommand(DeleteWebhook, ['w-2'])
    expect(refused.code).toBe(2)
    expect(calls()).toHaveLength(1)
  })

  it('--dry-run needs no consent and sends nothing', async () => {
    const r = await runCommand(DeleteWebhook, ['w-1', '--dry-run'])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("curl -sS -X DELETE 'http://127.0.0.1:4010/checkout/v1/webhooks/w-1'")
    expect(calls()).toHaveLength(0)
  })
})

describe('output', () => {
  it('table by default with the default columns; chatter on stderr', async () => {
    const r = await runCommand(ListThings, [])
    // stdout is not a terminal here: tab-separated, with a header
    expect(r.stdout).toBe('id\tname\na\tAlpha, Inc.\nb\tBeta\n')
    expect(r.stdout).not.toContain('nested')
    expect(r.stderr).toBe('listed 2\n')
  })

  it('--output csv|ndjson|json and --columns', async () => {
    expect((await runCommand(ListThings, ['-o', 'csv'])).stdout).toBe('id,name\na,"Alpha, Inc."\nb,Beta\n')
    expect((await runCommand(ListThings, ['-o', 'csv', '--columns', 'id,nested.n'])).stdout).toBe('id,nested.n\na,1\nb,2\n')
    expect((await runCommand(ListThings, ['--output', 'ndjson'])).stdout.trim().split('\n')).toHaveLength(2)
    expect(JSON.parse((await runCommand(ListThings, ['-o', 'json'])).stdout)).toHaveLength(2)
  })

  it('--json prints the returned value only: no table, no chatter', async () => {
    const r = await runCommand(ListThings, ['--json'])
    expect(JSON.parse(r.stdout)).toEqual([
      {id: 'a', name: 'Alpha, Inc.', nested: {n: 1}},
      {id: 'b', name: 'Beta', nested: {n: 2}},
    ])
    expect(r.stderr).toBe('')
  })

  it('an invalid --output value is a usage error', async () => {
    const r = await runCommand(ListThings, ['-o', 'xml'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^Error: Expected --output=xml to be one of: table, json, ndjson, csv/)
  })
})

describe('unexpected errors', () => {
  it('exit 1, one line, secrets of the profile scrubbed; the stack only with --verbose', async () => {
    const r = await runCommand(Explode, [])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('Error: Unexpected error: cannot read [REDACTED]')
    expect(r.stderr).not.toContain('sk-sandbox-')
    expect(r.stderr).not.toMatch(/\n\s+at /)
    const verbose = await runCommand(Explode, ['--verbose'])
    expect(verbose.stderr).toMatch(/\n\s+at /)
    expect(verbose.stderr).not.toContain('sk-sandbox-')
  })
})

describe('profile changes', () => {
  it('a change a command did not save is written when it ends', async () => {
    const r = await runCommand(StoreSession, ['--json'])
    expect(r.code, r.stderr).toBe(0)
    const saved = JSON.parse(readFileSync(join(harness.env.dir, 'profiles.json'), 'utf8'))
    expect(saved.profiles.sandbox.health).toMatchObject({session: 'sess-Kk11Ll22Mm33', userId: 'u-7'})
  })

  it('a write that fails is reported (exit 1), not silently dropped', async () => {
    process.env.TEST_BREAK_CONFIG_DIR = '1'
    const r = await runCommand(StoreSession, [])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`Error: could not save ${join(harness.env.dir, 'profiles.json')}`)
    expect(r.stderr).not.toContain('sess-Kk11Ll22Mm33')
  })
})
