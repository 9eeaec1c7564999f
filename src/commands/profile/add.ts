import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {localFlags} from '../../cli/flags.js'
import {askSecret, askText, isInteractive, readStdin} from '../../cli/prompt.js'
import {UsageError} from '../../errors.js'
import {registerSecret} from '../../http/secrets/registry.js'
import {profileView} from '../../profiles/display.js'
import {parseProfileName} from '../../profiles/name-arg.js'
import {type Profile, sandboxProfile} from '../../profiles/schema.js'
import {profileExistsError} from '../../profiles/store.js'
import {HEALTH_API_VERSION} from '../../services/health/client-module.js'

export default class ProfileAdd extends BaseCommand<typeof ProfileAdd> {
  static override baseFlags = localFlags
  static override args = {name: Args.string({description: 'profile name', parse: parseProfileName, required: true})}
  static override description = `Create or replace a profile.

A sandbox profile defaults to the embedded sandbox and its test keys. A production profile needs both base URLs and the keys; in a terminal the missing ones are asked for (the secret key hidden), elsewhere pass them as flags (the secret key only through --secret-key-stdin, never on the command line).`
  static override examples = [
    '<%= config.bin %> profile add local --env sandbox --health-url http://127.0.0.1:5010 \\\n  --checkout-url http://127.0.0.1:5010/checkout',
    'printf %s "$SECRET" | <%= config.bin %> profile add prod --env production \\\n  --health-url https://health.example.com \\\n  --checkout-url https://pay.example.com --public-key pk-live-... \\\n  --secret-key-stdin',
  ]
  static override flags = {
    env: Flags.option({default: 'production', description: 'kind of environment', options: ['sandbox', 'production'] as const})(),
    'health-url': Flags.string({description: 'health service base URL'}),
    'checkout-url': Flags.string({description: 'checkout service base URL (including any path, e.g. https://host/checkout)'}),
    'public-key': Flags.string({description: "checkout public API key (it is public: used by buyers' browsers)"}),
    'secret-key-stdin': Flags.boolean({description: 'read the checkout secret API key from stdin'}),
    language: Flags.string({description: 'default accept-language for the health service (BCP 47)'}),
    use: Flags.boolean({description: 'make it the active profile'}),
    force: Flags.boolean({description: 'replace an existing profile of that name'}),
  }

  protected async execute(): Promise<Record<string, unknown>> {
    const {flags} = this
    const store = await this.profileStore()
    const {name} = this.args
    if (store.get(name) && !flags.force) throw profileExistsError(name)

    const base: Profile =
      flags.env === 'sandbox'
        ? sandboxProfile()
        : {env: 'production', health: {baseUrl: '', apiVersion: HEALTH_API_VERSION}, checkout: {baseUrl: ''}}

    // Without a terminal, every missing value is named at once rather than one per attempt.
    if (flags.env === 'production' && !isInteractive()) {
      const missing = (['health-url', 'checkout-url', 'public-key'] as const).filter((f) => !flags[f]).map((f) => `--${f}`)
      if (missing.length > 0) {
        throw new UsageError(`Missing ${missing.join(', ')} (required for a production profile); no terminal to ask in`, [
          `Pass them: opsctl profile add ${name} --env production ${missing.map((m) => `${m} <value>`).join(' ')}`,
        ])
      }
    }

    const healthUrl =
      flags['health-url'] ?? (flags.env === 'sandbox' ? base.health.baseUrl : await this.ask('Health service base URL', '--health-url'))
    const checkoutUrl =
      flags['checkout-url'] ??
      (flags.env === 'sandbox' ? base.checkout.baseUrl : await this.ask('Checkout service base URL', '--checkout-url'))
    const publicKey =
      flags['public-key'] ?? (flags.env === 'sandbox' ? base.checkout.publicKey : await this.ask('Checkout public key', '--public-key'))
    let secretKey = base.checkout.secretKey
    if (flags['secret-key-stdin']) {
      secretKey = (await readStdin()).trim()
      registerSecret(secretKey)
      if (!secretKey) throw new UsageError('--secret-key-stdin read nothing from stdin; nothing was changed')
    } else if (flags.env === 'production') {
      secretKey = isInteractive() ? await askSecret('Checkout secret key', '--secret-key-stdin') : undefined
    }

    const profile: Profile = {
      env: flags.env,
      health: {...base.health, baseUrl: healthUrl, ...(flags.language ? {language: flags.language} : {})},
      checkout: {baseUrl: checkoutUrl, ...(publicKey ? {publicKey} : {}), ...(secretKey ? {secretKey} : {})},
    }
    // Without --force, a profile of that name that another process saved meanwhile is not replaced either.
    store.set(name, profile, {replace: flags.force})
    if (flags.use) store.use(name)
    await store.save()
    if (!secretKey) this.note('No secret key stored: checkout commands other than "checkout create" will need OPSCTL_CHECKOUT_SECRET_KEY')
    const view = profileView(name, profile, store.activeName === name)
    return view
  }

  private async ask(message: string, flag: string): Promise<string> {
    const isUrl = flag.endsWith('-url')
    return askText(message, `${flag} (required for a production profile)`, (v) =>
      v.trim() && (!isUrl || /^https?:\/\/\S+$/.test(v)) ? true : isUrl ? 'an http(s) URL' : 'required',
    )
  }
}
