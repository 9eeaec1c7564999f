import {BaseCommand} from '../../cli/base-command.js'
import {CUSTOMIZATION_COLUMNS} from '../../cli/checkout/columns.js'
import {type View} from '../../cli/output/view.js'
import {checkoutOps} from '../../services/checkout/operations.js'

export default class CustomizeGet extends BaseCommand<typeof CustomizeGet> {
  static override description = `Show the customization of the hosted payment page (exit 4 when there is none).`
  static override examples = ['<%= config.bin %> customize get', '<%= config.bin %> customize get --json']

  static override view: View = {columns: CUSTOMIZATION_COLUMNS}

  protected async execute(): Promise<Record<string, unknown>> {
    const client = await this.client('checkout')
    const {data} = await client.call(checkoutOps.getCustomization)
    return data
  }
}
