import {BaseCommand} from '../../cli/base-command.js'
import {changeFlags} from '../../cli/flags.js'
import {checkoutOps} from '../../services/checkout/operations.js'

export default class CustomizeRemove extends BaseCommand<typeof CustomizeRemove> {
  static override baseFlags = changeFlags
  static override changes = checkoutOps.removeCustomization
  static override description = `Remove the customization: the payment page goes back to the default look.

Asks for confirmation (--yes without a terminal).`
  static override examples = ['<%= config.bin %> customize remove', '<%= config.bin %> customize remove --yes']

  protected async execute(): Promise<Record<string, unknown>> {
    const client = await this.client('checkout')
    const {data} = await client.call(checkoutOps.removeCustomization, {confirm: {action: 'Remove the payment page customization'}})
    const result = {removed: true, message: data?.message ?? null}
    return result
  }
}
