/**
 * A service names what is wrong with an input by the input's own name; each caller words it: a
 * command with the flag the person typed, a bulk run with its row's column. The same refusal,
 * two vocabularies, and never a flag a bulk file or a scenario did not have.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import type {ServiceClient} from '../../src/http/client.js'

import {flagNamer} from '../../src/cli/input-words.js'
import RefundCreate from '../../src/commands/refund/create.js'
import WebhookUpdate from '../../src/commands/webhook/update.js'
import {InputError} from '../../src/errors.js'
import {NO_STEPS} from '../../src/services/change.js'
import {refundCheckoutChecked} from '../../src/services/checkout/refund.js'
import {voidCheckoutChecked} from '../../src/services/checkout/void.js'
import {type CommandHarness, commandHarness} from '../helpers/command.js'

/** A client no refusal reaches: the input is checked before anything is read. */
const noClient = {...NO_STEPS, client: {} as ServiceClient}

describe('a service input error, worded by its caller', () => {
  it('names the input plainly (a bulk column) and, worded by a command, its flag', async () => {
    const error = await voidCheckoutChecked(noClient, {checkoutId: 'chk_1', reason: '  '}).catch((error_: unknown) => error_)
    expect(error).toBeInstanceOf(InputError)
    expect((error as InputError).message).toBe('reason must not be empty')
    expect((error as InputError).worded(flagNamer()).message).toBe('--reason must not be empty')
    const refund = await refundCheckoutChecked(noClient, {checkoutId: 'chk_1', check: false, reason: 'r'}).catch((error_: unknown) => error_)
    expect((refund as InputError).worded(flagNamer()).message).toBe('--full needs to read the checkout; with --dry-run pass --amount instead')
  })

  it('kebab-cases an input and takes a command’s own spelling of one', () => {
    expect(flagNamer()('firstSyncDate')).toBe('--first-sync-date')
    expect(flagNamer({callbackUrl: 'url'})('callbackUrl')).toBe('--url')
  })
})

describe('commands word them with their own flags (exit 2, nothing sent)', () => {
  let h: CommandHarness
  beforeEach(async () => {
    h = await commandHarness()
  })
  afterEach(async () => {
    await h.close()
  })

  it('webhook update names --url, its flag for the callback URL', async () => {
    const out = await h.run(WebhookUpdate, ['wh_1'])
    expect(out.code).toBe(2)
    expect(out.stderr.split('\n')[0]).toBe('Error: Nothing to change: pass --name and/or --url')
    expect(h.calls()).toEqual([])
  })

  it('refund create names --full, --dry-run and --amount', async () => {
    const out = await h.run(RefundCreate, ['chk_1', '--reason', 'r', '--full', '--dry-run'])
    expect(out.code).toBe(2)
    expect(out.stderr.split('\n')[0]).toBe('Error: --full needs to read the checkout; with --dry-run pass --amount instead')
    expect(h.calls()).toEqual([])
  })
})
