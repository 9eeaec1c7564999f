import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {CUSTOMIZATION_COLUMNS} from '../../cli/checkout/columns.js'
import {customizationFromFlags} from '../../cli/checkout/customization-flags.js'
import {type View} from '../../cli/output/view.js'
import {checkoutOps} from '../../services/checkout/operations.js'


export default class CustomizeSet extends BaseCommand<typeof CustomizeSet> {
  static override audits = checkoutOps.setCustomization
  static override description = `Set the customization of the hosted payment page: logo, icons, title and button colour.

All five are required; the URLs must be http(s) and the colour a hex colour (#1a2b3c or #abc), checked before sending. Recommended image formats: .jpg, .gif, .png, .svg, .ico; the Apple touch icon is best 120 x 120 px.`
  static override examples = [
    '<%= config.bin %> customize set --logo-url https://shop.example/logo.png \\\n  --icon-url https://shop.example/favicon.ico \\\n  --apple-touch-icon-url https://shop.example/touch.png --title "Tea Shop" \\\n  --color "#0a7d3b"',
  ]
  static override flags = {
    'logo-url': Flags.string({description: 'URL of the merchant logo shown in the header', required: true}),
    'icon-url': Flags.string({description: 'URL of the favicon', required: true}),
    'apple-touch-icon-url': Flags.string({description: 'URL of the Apple touch icon (120 x 120 px)', required: true}),
    title: Flags.string({description: 'title of the payment page', required: true}),
    color: Flags.string({description: 'hex colour of the pay button, e.g. #0a7d3b; any hex colour is sent (a warning when white text reads poorly on it)', required: true}),
  }

  static override view: View = {columns: CUSTOMIZATION_COLUMNS}

  protected async execute(): Promise<Record<string, unknown>> {
    const {flags} = this
    const {body, warnings} = customizationFromFlags({
      logoUrl: flags['logo-url'],
      iconUrl: flags['icon-url'],
      appleTouchIconUrl: flags['apple-touch-icon-url'],
      title: flags.title,
      color: flags.color,
    })
    for (const w of warnings) this.note(w)
    const client = await this.client('checkout')
    const {data} = await client.call(checkoutOps.setCustomization, {body})
    return data
  }
}
