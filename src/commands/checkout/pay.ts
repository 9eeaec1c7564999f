import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {CHECKOUT_ZONE} from '../../cli/checkout/columns.js'
import {idArg} from '../../cli/input-text.js'
import {type View} from '../../cli/output/view.js'
import {actAsBuyer} from '../../runtime/checkout/buyer.js'
import {TEST_CARDS} from '../../services/checkout/test-cards.js'

export default class CheckoutPay extends BaseCommand<typeof CheckoutPay> {
  static override args = {checkoutId: idArg('checkout id')}
  static override requiresSandbox = {
    why: "checkout pay acts as a buyer on the sandbox's payment page; pay a real checkout in a browser at its redirectUrl",
    suggestions: ['opsctl checkout pay <id> --profile sandbox'],
  }
  static override description = `Act as the buyer on the sandbox's hosted payment page (sandbox profiles only).

Fills in the page's card form over HTTP, as a browser would, and reports where the page sent the buyer and the checkout's resulting status. Test cards decide the outcome:

- ${TEST_CARDS.mastercardSuccess} (Mastercard) and ${TEST_CARDS.visaSuccess} (VISA) succeed;
- ${TEST_CARDS.mastercardDeclined} (and any other valid number) is declined;
- a number that fails the Luhn check, or an expired card, is refused by the page, and the checkout stays payable.

Without --card a succeeding test card is used; --fail uses the declined card; --cancel leaves the page as a buyer who gives up. Only the card's scheme and last four digits are ever shown.

The card data is posted only to the profile's checkout origin (the sandbox): a page whose form points anywhere else is refused (exit 5) before anything is posted. The output says what was posted: method, URL and the masked card.`
  static override examples = [
    '<%= config.bin %> checkout pay chk_5f1a2b3c4d5e6f708192a3b4',
    `<%= config.bin %> checkout pay chk_5f1a2b3c4d5e6f708192a3b4 \\\n  --card ${TEST_CARDS.visaSuccess} --expiry 12/30 --cvc 123`,
    '<%= config.bin %> checkout pay chk_5f1a2b3c4d5e6f708192a3b4 --fail',
    '<%= config.bin %> checkout pay chk_5f1a2b3c4d5e6f708192a3b4 --cancel',
  ]
  static override flags = {
    card: Flags.string({description: 'card number (a sandbox test card)', exclusive: ['fail', 'cancel']}),
    // Relationships, not `exclusive`: oclif's usage line would show them as empty alternatives.
    expiry: Flags.string({description: 'card expiry MM/YY (default: December, three years ahead)', relationships: [{flags: ['cancel'], type: 'none'}]}),
    cvc: Flags.string({description: 'card security code (default 123)', relationships: [{flags: ['cancel'], type: 'none'}]}),
    fail: Flags.boolean({description: 'pay with the declined test card', exclusive: ['card', 'cancel']}),
    cancel: Flags.boolean({description: 'cancel on the page instead of paying (a dropout)', exclusive: ['card', 'fail']}),
  }

  static override view: View = {columns: ['checkoutId', 'action', 'sent.method', 'sent.url', 'sent.card', 'status', 'paymentStatus', 'redirectedTo'], zone: CHECKOUT_ZONE}

  protected async execute(): Promise<Record<string, unknown>> {
    const {flags} = this
    const client = await this.client('checkout')
    const result = await actAsBuyer(client, {
      checkoutId: this.args.checkoutId,
      action: flags.cancel ? 'cancel' : 'pay',
      card: flags.fail ? TEST_CARDS.mastercardDeclined : flags.card,
      expiry: flags.expiry,
      cvc: flags.cvc,
    })
    return {...result}
  }
}
