/**
 * The CLI half of "behaviour derived once": a small service written only as table rows (one
 * destructive DELETE, one paged GET, one POST) and three commands that name them. Nothing else
 * is written for consent, announcements or --dry-run: they come from the rows, through the base
 * command and the client's `beforeSend` hook. test/services/define-service.test.ts shows the
 * sandbox side of such a table: routes, statuses and `paginate`.
 */
import {Args, Flags} from '@oclif/core'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {z} from 'zod'

import {BaseCommand} from '../../src/cli/base-command.js'
import {changeFlags} from '../../src/cli/flags.js'
import {defineService} from '../../src/http/operation.js'
import {cli, type CommandHarness, commandHarness, useProduction} from '../helpers/command.js'

const Gadget = z.looseObject({id: z.string(), name: z.string()})

const gadgets = defineService({
  name: 'checkout',
  operations: {
    deleteGadget: {method: 'DELETE', path: '/v1/gadgets/{gadgetId}', auth: 'secret', successStatus: 204, destructive: true},
    listGadgets: {
      method: 'GET',
      path: '/v1/gadgets',
      auth: 'secret',
      query: z.object({pageToken: z.string().optional()}),
      response: z.object({items: z.array(Gadget), next: z.string().optional()}),
      paging: {token: 'pageToken', items: 'items', next: 'next'},
    },
    createGadget: {
      method: 'POST',
      path: '/v1/gadgets',
      auth: 'secret',
      body: z.object({name: z.string().min(1)}),
      response: Gadget,
      successStatus: 201,
    },
  },
}).operations

class GadgetDelete extends BaseCommand<typeof GadgetDelete> {
  static override args = {gadgetId: Args.string({required: true})}
  static override baseFlags = changeFlags
  static override changes = gadgets.deleteGadget
  static override description = 'test: delete a gadget'

  protected async execute(): Promise<unknown> {
    const client = await this.client('checkout')
    await client.call(gadgets.deleteGadget, {params: {gadgetId: this.args.gadgetId}})
    return {deleted: this.args.gadgetId}
  }
}

class GadgetCreate extends BaseCommand<typeof GadgetCreate> {
  static override description = 'test: create a gadget'
  static override flags = {name: Flags.string({required: true})}

  protected async execute(): Promise<unknown> {
    const client = await this.client('checkout')
    const {data} = await client.call(gadgets.createGadget, {body: {name: this.flags.name}})
    return data
  }
}

/** Lists, then deletes every gadget named "old": it never declared the DELETE, and the hook still guards it. */
class GadgetPrune extends BaseCommand<typeof GadgetPrune> {
  static override description = 'test: a command that reaches a destructive row it did not declare'

  protected async execute(): Promise<unknown> {
    const client = await this.client('checkout')
    const {data} = await client.call(gadgets.listGadgets)
    for (const g of data.items.filter((i) => i.name === 'old')) await client.call(gadgets.deleteGadget, {params: {gadgetId: g.id}})
    return {}
  }
}

const GADGETS = '/checkout/v1/gadgets'
let h: CommandHarness

beforeEach(async () => {
  h = await commandHarness()
})

afterEach(async () => {
  await h.close()
})

describe('a destructive row is confirmed by the runtime', () => {
  it('without --yes and without a terminal: exit 2, named from the row, and nothing sent', async () => {
    const r = await h.run(GadgetDelete, cli('g-1'))
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('Delete gadget g-1 is destructive and needs confirmation; pass --yes')
    expect(h.calls()).toEqual([])
  })

  it('with --yes: sent once', async () => {
    h.pool.intercept({path: `${GADGETS}/g-1`, method: 'DELETE'}).reply(204, '')
    const r = await h.run(GadgetDelete, cli('g-1', {yes: true, json: true}))
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({deleted: 'g-1'})
    expect(h.calls().map((c) => `${c.method} ${c.path}`)).toEqual([`DELETE ${GADGETS}/g-1`])
  })

  it('a command that reaches the row without declaring it is refused at the call: the read went, the DELETE did not', async () => {
    h.pool.intercept({path: GADGETS, method: 'GET'}).reply(200, {items: [{id: 'g-9', name: 'old'}]}, {headers: {'content-type': 'application/json'}})
    const r = await h.run(GadgetPrune, [])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('Delete gadget g-9 is destructive and needs confirmation')
    expect(h.calls().map((c) => c.method)).toEqual(['GET'])
  })
})

describe('--dry-run sends nothing and prints curl', () => {
  it('for the DELETE, without asking for consent', async () => {
    const r = await h.run(GadgetDelete, cli('g-1', {'dry-run': true}))
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain(`curl -sS -X DELETE 'http://127.0.0.1:4010${GADGETS}/g-1'`)
    expect(h.calls()).toEqual([])
  })

  it('for the POST, with its body checked first', async () => {
    const r = await h.run(GadgetCreate, cli({name: 'widget', 'dry-run': true}))
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain(`-X POST 'http://127.0.0.1:4010${GADGETS}'`)
    expect(r.stdout).toContain('{"name":"widget"}')
    const bad = await h.run(GadgetCreate, cli({name: '', 'dry-run': true}))
    expect(bad.code).toBe(2)
    expect(h.calls()).toEqual([])
  })
})

describe('on a production profile', () => {
  it('a change says where it goes before it goes; a read says nothing', async () => {
    await useProduction(h.configDir, 'sk-live-Gg12Hh34Jj56')
    const pool = h.agent.get('https://pay.example.com')
    pool.intercept({path: GADGETS, method: 'POST'}).reply(201, {id: 'g-2', name: 'widget'}, {headers: {'content-type': 'application/json'}})
    const created = await h.run(GadgetCreate, cli({name: 'widget', json: true}))
    expect(created.code, created.stderr).toBe(0)
    expect(created.stderr).toContain('Profile prod (production) -> https://pay.example.com/checkout')
    expect(created.stdout).not.toContain('production')

    pool.intercept({path: GADGETS, method: 'GET'}).reply(200, {items: []}, {headers: {'content-type': 'application/json'}})
    const pruned = await h.run(GadgetPrune, [])
    expect(pruned.code, pruned.stderr).toBe(0)
    expect(pruned.stderr).not.toContain('production')
  })
})
