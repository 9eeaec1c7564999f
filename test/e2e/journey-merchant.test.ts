/**
 * The merchant's day, as typed at an 80-column terminal against a real sandbox process: take a
 * payment and void it the same day; take another, let the day pass (and see what fell due), refund
 * part of it; then read the refunds, the audit log and the checkouts, and end the day holding the
 * shop's orders against the service (`checkout reconcile`). Ids, amounts and times in
 * the checkout zone (+08:00) whole on screen, nothing else on it; each refusal its exit code, and
 * nothing sent for it.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {fits, onScreen} from '../helpers/screen.js'
import {type Cli, sandboxForFile} from './harness.js'

let cli: Cli
const CHECKOUT_ID = /^chk_[\da-f]{24}$/
const PH_TIME = /(?:\d{4}-)?\d{2}-\d{2} \d{2}:\d{2} \+08:00/
const ids: {tea?: string; gift?: string; forgotten?: string; refund?: string} = {}

sandboxForFile([], (_started, user) => {
  cli = user
})

async function created(amount: string, ...more: string[]): Promise<string> {
  const checkout = await cli.json(['checkout', 'create', '--amount', amount, ...more])
  expect(checkout.checkoutId).toMatch(CHECKOUT_ID)
  return checkout.checkoutId
}

describe("the merchant's day at 80 columns", () => {
  it('creates and pays a checkout, then voids it the same day', async () => {
    ids.tea = await created('150.00', '--item', 'Tea:2:75.00', '--success-url', 'https://shop.example/ok')
    const paid = await cli.run(['checkout', 'pay', ids.tea])
    expect(paid.code, paid.stderr).toBe(0)
    const screen = await onScreen(['checkout', 'void', ids.tea, '--reason', 'duplicate order', '--yes'], cli.env)
    expect(screen.code, screen.raw).toBe(0)
    fits(screen.lines)
    expect(screen.lines.slice(0, 4)).toEqual([`checkoutId  ${ids.tea}`, 'voidStatus  SUCCESS', 'amount      150.00', 'currency    PHP'])
    expect(screen.lines[4]).toMatch(/^requestId {3}[\da-f-]{36}$/)
    expect(screen.lines).toHaveLength(5)
  })

  it('the next day: the clock says the new time in the checkout zone and which checkout expired on the way', async () => {
    ids.gift = await created('90.00')
    expect((await cli.run(['checkout', 'pay', ids.gift])).code).toBe(0)
    ids.forgotten = await created('5.00')
    const screen = await onScreen(['sandbox', 'clock', '--advance', '24h'], cli.env)
    expect(screen.code, screen.raw).toBe(0)
    fits(screen.lines)
    expect(screen.lines).toEqual([
      'Fell due on the way (1):',
      `  checkout ${ids.forgotten} expired unpaid (CHECKOUT_DROPOUT)`,
      'Its webhooks, with their outcomes: opsctl webhook deliveries',
      expect.stringMatching(/^now {2}\d{4}-\d{2}-\d{2} \d{2}:\d{2} \+08:00$/),
    ])
  })

  it('refuses a void after its day and a refund over the amount (exit 5, nothing sent); refunds part once', async () => {
    const late = await cli.run(['checkout', 'void', ids.gift!, '--reason', 'late', '--yes'])
    expect(late.code).toBe(5)
    expect(late.stdout).toBe('')
    expect(late.stderr).toMatch(/^Error: .*void window/m)
    expect(late.stderr).toContain(`opsctl refund create ${ids.gift}`)
    const over = await cli.run(['refund', 'create', ids.gift!, '--amount', '100.00', '--reason', 'too much', '--yes'])
    expect(over.code).toBe(5)
    expect(over.stdout).toBe('')

    const screen = await onScreen(['refund', 'create', ids.gift!, '--amount', '50.00', '--reason', 'one cup broken', '--yes'], cli.env)
    expect(screen.code, screen.raw).toBe(0)
    fits(screen.lines)
    expect(screen.lines.slice(0, 2)).toEqual([`Checkout ${ids.gift} takes no other refund: 40.00 PHP can no`, '  longer be refunded.'])
    expect(screen.lines).toContain(`checkoutId    ${ids.gift}`)
    expect(screen.lines).toContain('reason        one cup broken')
    ids.refund = /^refundId +(\S+)$/m.exec(screen.lines.join('\n'))![1]
  })

  it('a bulk refund planned with --dry-run: the refused row with its reason whole, the summary broken between words', async () => {
    const file = join(cli.configDir, 'refunds.csv')
    writeFileSync(file, `checkoutId,amount,currency,reason\n${ids.tea},10.00,PHP,event cancelled\n`)
    const screen = await onScreen(['refund', 'create', '--from-file', file, '--dry-run'], cli.env)
    expect(screen.code, screen.raw).toBe(5)
    fits(screen.lines)
    expect(screen.lines.slice(-5)).toEqual([
      expect.stringMatching(/^line +checkoutId +outcome +message$/),
      expect.stringMatching(new RegExp(`^2 +${ids.tea} +refused +was voided; there is nothing to$`)),
      expect.stringMatching(/^ +refund$/),
      'Plan: 0 of 1 rows to send (nothing); 1 refused, not sent. Nothing was sent',
      '  (--dry-run)',
    ])
  })

  it('api with -F: an amount typed 12.5 is refused by the service, and the error says how to send it', async () => {
    const sent = await cli.run(['api', 'checkout', 'POST', '/v1/checkouts', '-F', 'totalAmount[value]=12.5', '-f', 'totalAmount[currency]=PHP', '-f', 'requestReferenceNumber=api-1', '-f', 'items[][name]=Tea', '-F', 'items[][quantity]=1', '-f', 'items[][totalAmount][value]=12.50'])
    expect(sent.code).toBe(5)
    expect(sent.stderr).toMatch(/^Error: .*totalAmount\.value: expected a decimal amount with exactly two decimals/)
    // each problem once
    expect(sent.stderr.split('\n')[0].match(/totalAmount\.value/g)).toHaveLength(1)
    expect(sent.stderr).toContain(`Try this: An amount is text with exactly two decimals; -F makes JSON of integers only, so 12.5 went as "12.5": send -f 'totalAmount[value]=12.50'`)
  })

  it('refund list: the refund id, status and amount whole', async () => {
    const screen = await onScreen(['refund', 'list', ids.gift!], cli.env)
    expect(screen.code, screen.raw).toBe(0)
    fits(screen.lines)
    const header = screen.lines.findIndex((l) => l.startsWith('id '))
    expect(screen.lines.slice(header + 1)).toEqual([expect.stringMatching(new RegExp(`^${ids.refund} +SUCCESS +50\\.00 `))])
  })

  it('audit list: each change with its operation, outcome, amount and checkout id whole', async () => {
    const screen = await onScreen(['audit', 'list', '--since', '1h'], cli.env)
    expect(screen.code, screen.raw).toBe(0)
    fits(screen.lines)
    const text = screen.lines.join('\n')
    expect(text).toMatch(new RegExp(`^voidCheckout +applied +150\\.00 +${ids.tea}$`, 'm'))
    expect(text).toMatch(new RegExp(`^refundCheckout +applied +50\\.00 +${ids.gift}$`, 'm'))
    // the refusals were refused here, before sending: audited as such
    expect(text).toMatch(new RegExp(`^voidCheckout +refused .*${ids.gift}$`, 'm'))
  })

  it('checkout list: each checkout whole with its state now, at the service’s time in the checkout zone', async () => {
    const screen = await onScreen(['checkout', 'list'], cli.env)
    expect(screen.code, screen.raw).toBe(0)
    fits(screen.lines)
    const rows = screen.lines.filter((l) => l.startsWith('chk_'))
    expect(rows).toHaveLength(3)
    expect(rows[0]).toMatch(new RegExp(`^${ids.forgotten} +5\\.00 +expired +${PH_TIME.source}$`))
    expect(rows[1]).toMatch(new RegExp(`^${ids.gift} +90\\.00 +refunded 50\\.00 +${PH_TIME.source}$`))
    expect(rows[2]).toMatch(new RegExp(`^${ids.tea} +150\\.00 +voided +${PH_TIME.source}$`))
    expect(screen.raw).not.toMatch(/warning/i)
  })

  it("the end of the day: the shop's orders held against the service, the order it got wrong and the one it left out named whole, exit 1", async () => {
    const orders = join(cli.configDir, 'orders.csv')
    // The shop thinks the gift was paid in full (it was refunded 50.00) and forgot the expired one.
    writeFileSync(orders, ['checkoutId,amount,currency,state,reference', `${ids.tea},150.00,PHP,voided,ORDER-1`, `${ids.gift},90.00,PHP,paid,ORDER-2`].join('\n') + '\n')
    const screen = await onScreen(['checkout', 'reconcile', '--from-file', orders, '--audit', '--since', '6h'], cli.env)
    expect(screen.code, screen.raw).toBe(1)
    fits(screen.lines)
    const text = screen.lines.join('\n')
    // the differences first, each id whole beside what each side says (a side's words wrap between words: amounts stay whole)
    const rows = screen.lines.filter((l) => l.startsWith('chk_'))
    expect(rows[0]).toMatch(new RegExp(`^${ids.gift} +state-differs +paid 90\\.00 PHP +refunded 50\\.00 of`))
    expect(text).toMatch(/refunded 50\.00 of\n +90\.00 PHP$/m)
    expect(rows[1]).toMatch(new RegExp(`^${ids.forgotten} +not-in-file +expired 5\\.00 PHP$`))
    expect(rows[2]).toMatch(new RegExp(`^${ids.tea} +match +voided 150\\.00 +voided 150\\.00 PHP$`))
    expect(text).toMatch(/^Totals:$/m)
    expect(text).toMatch(/^PHP +service +3 +240\.00 +150\.00 +50\.00 +40\.00$/m)
    expect(screen.lines.at(-1)).toBe('3 rows: 1 state-differs, 1 not-in-file, 1 match')
  })
})
