import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {CHECKOUT_ZONE} from '../../cli/checkout/columns.js'
import {buildCheckoutRequest, completeRequest} from '../../cli/checkout/request-flags.js'
import {parsePairs, readJsonData} from '../../cli/data-input.js'
import {currencyCode} from '../../cli/input-text.js'
import {openInBrowser} from '../../cli/open-browser.js'
import {type View} from '../../cli/output/view.js'
import {checkRequestBody} from '../../cli/request-body.js'
import {escapeControlChars} from '../../control-chars.js'
import {checkoutOps} from '../../services/checkout/operations.js'
import {checkRequestTotals} from '../../services/checkout/request.js'

const BUILDING_FLAGS = [
  'amount',
  'currency',
  'item',
  'ref',
  'success-url',
  'failure-url',
  'cancel-url',
  'buyer-first-name',
  'buyer-last-name',
  'buyer-email',
  'buyer-phone',
  'metadata',
]

export default class CheckoutCreate extends BaseCommand<typeof CheckoutCreate> {
  static override audits = checkoutOps.initiateCheckout
  static override description = `Create a checkout and print its id and the address of its hosted payment page.

The request is built from flags, or read whole from --data. Amounts are decimal with at most two decimals (3 decimals are refused). When both --amount and --item are given, the items must add up to the amount; with items only, the amount is their total; with --amount only, one item "Order <ref>" is sent. A reference number is generated when --ref is not given. Uses the profile's public key. The creation is recorded in the local audit log, so "opsctl checkout list" finds the id again later.`
  static override examples = [
    '<%= config.bin %> checkout create --amount 150.00 --item "Tea:2:50.00:TEA-01" \\\n  --item "Cake:1:50.00"',
    '<%= config.bin %> checkout create --item "Tea:2:75.50" \\\n  --success-url https://shop.example/ok \\\n  --failure-url https://shop.example/failed \\\n  --cancel-url https://shop.example/cart --open',
    '<%= config.bin %> checkout create --amount 99.99 --ref ORDER-1001 \\\n  --buyer-email ana@example.com --json',
    '<%= config.bin %> checkout create --data @examples/checkout.json',
  ]
  static override flags = {
    amount: Flags.string({description: 'total amount, e.g. 1500.00 (at most two decimals)'}),
    currency: Flags.string({default: 'PHP', description: 'currency code of the total, three letters', parse: currencyCode()}),
    item: Flags.string({description: 'an item "name:quantity:unit-price[:code]" (repeatable)', multiple: true, multipleNonGreedy: true}),
    ref: Flags.string({description: "merchant's request reference number (generated when absent)"}),
    'success-url': Flags.string({description: 'where the page sends the buyer after a successful payment'}),
    'failure-url': Flags.string({description: 'where the page sends the buyer after a failed payment'}),
    'cancel-url': Flags.string({description: 'where the page sends the buyer who cancels'}),
    'buyer-first-name': Flags.string({description: "buyer's first name"}),
    'buyer-last-name': Flags.string({description: "buyer's last name"}),
    'buyer-email': Flags.string({description: "buyer's email"}),
    'buyer-phone': Flags.string({description: "buyer's phone"}),
    metadata: Flags.string({description: 'metadata key=value (repeatable)', multiple: true, multipleNonGreedy: true}),
    data: Flags.string({
      char: 'd',
      description: 'the whole checkout request as JSON: @file.json or - for stdin (instead of the other request flags)',
      // A relationship, not `exclusive`: oclif's usage line would read it as every flag excluding the others.
      relationships: [{flags: BUILDING_FLAGS, type: 'none'}],
    }),
    open: Flags.boolean({description: 'open the payment page in the browser'}),
  }

  static override view: View = {columns: ['checkoutId', 'redirectUrl', 'requestReferenceNumber', 'amount', 'currency'], zone: CHECKOUT_ZONE}

  protected async execute(): Promise<Record<string, unknown>> {
    const {flags} = this
    const body = flags.data
      ? completeRequest(await readJsonData(flags.data))
      : buildCheckoutRequest({
          amount: flags.amount,
          currency: flags.currency,
          items: flags.item,
          ref: flags.ref,
          successUrl: flags['success-url'],
          failureUrl: flags['failure-url'],
          cancelUrl: flags['cancel-url'],
          buyer: {
            firstName: flags['buyer-first-name'],
            lastName: flags['buyer-last-name'],
            email: flags['buyer-email'],
            phone: flags['buyer-phone'],
          },
          metadata: parsePairs(flags.metadata, '--metadata'),
        })
    checkRequestTotals(body)
    checkRequestBody(checkoutOps.initiateCheckout, body)
    const client = await this.client('checkout')
    const {data, requestId} = await client.call(checkoutOps.initiateCheckout, {body})
    const total = body.totalAmount as {currency?: string; value?: string} | undefined
    const result = {
      checkoutId: data.checkoutId,
      redirectUrl: data.redirectUrl,
      requestReferenceNumber: body.requestReferenceNumber,
      amount: total?.value,
      currency: total?.currency,
      requestId,
    }
    if (!flags.open) return this.showPageLine(result)
    const browser = await openInBrowser(data.redirectUrl)
    if (browser.opened) this.note(`Opening ${data.redirectUrl} in your browser`)
    else this.note(`Could not open a browser (${browser.reason}). Open the payment page yourself: ${data.redirectUrl}`)
    return this.showPageLine({...result, opened: browser.opened, ...(browser.opened ? {} : {openError: browser.reason})})
  }

  /**
   * In a terminal the payment page URL is printed after the table on a line of its own, never
   * wrapped (a URL broken across lines cannot be clicked or copied); piped or as JSON the document is as usual.
   */
  private async showPageLine<D extends {redirectUrl?: string}>(document: D): Promise<D> {
    if (this.output.format !== 'table' || this.output.documentWanted || !process.stdout.isTTY || !document.redirectUrl) return document
    const columns = (CheckoutCreate.view.columns ?? []).filter((c) => c !== 'redirectUrl')
    await this.output.renderPart(document, {...CheckoutCreate.view, columns})
    process.stdout.write(`\nPayment page:\n${escapeControlChars(document.redirectUrl)}\n`)
    this.output.markShown()
    return document
  }
}
