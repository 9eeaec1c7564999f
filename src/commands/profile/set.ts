import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {localFlags} from '../../cli/flags.js'
import {askSecret, isInteractive, readStdin} from '../../cli/prompt.js'
import {UsageError} from '../../errors.js'
import {registerSecret} from '../../http/secrets/registry.js'
import {profileView} from '../../profiles/display.js'
import {parseProfileName} from '../../profiles/name-arg.js'
import {PROFILE_SETTING_NAMES, PROFILE_SETTINGS, type ProfileSetting} from '../../profiles/settings.js'

export default class ProfileSet extends BaseCommand<typeof ProfileSet> {
  static override args = {
    name: Args.string({description: 'profile name', parse: parseProfileName, required: true}),
    key: Args.string({description: 'the setting', options: PROFILE_SETTING_NAMES, required: true}),
    value: Args.string({description: 'its new value (not for secret-key: that one comes from stdin or a hidden prompt)'}),
  }

  static override baseFlags = localFlags
  static override description = `Change one setting of a profile, keeping the rest.

The settings are those of "profile add": env, health-url, checkout-url, public-key, secret-key, language. The secret key is read from stdin (or asked for, hidden, in a terminal), never taken from the command line.`
  static override examples = [
    '<%= config.bin %> profile set prod checkout-url https://pay.example.com/checkout',
    'printf %s "$SECRET" | <%= config.bin %> profile set prod secret-key',
    '<%= config.bin %> profile set prod language --unset',
  ]

  static override flags = {
    unset: Flags.boolean({description: 'remove the setting (public-key, secret-key and language only)'}),
  }

  protected async execute(): Promise<Record<string, unknown>> {
    const {key, name} = this.args
    const setting: ProfileSetting = PROFILE_SETTINGS[key as keyof typeof PROFILE_SETTINGS]
    const value = this.flags.unset ? undefined : await this.newValue(key, setting)
    const store = await this.profileStore()
    const profile = store.update(name, (p) => {
      setting.apply(p, value)
      return p
    })
    await store.save()
    return profileView(name, profile, store.activeName === name)
  }

  private async newValue(key: string, setting: ProfileSetting): Promise<string> {
    const given = this.args.value
    if (this.flags.unset && !setting.optional) throw new UsageError(`${key} cannot be unset; give it a value`)
    let value: string
    if (setting.secret) {
      if (given !== undefined) throw new UsageError(`${key} is a secret: pipe it on stdin instead of passing it as an argument; nothing was changed`)
      value = (isInteractive() ? await askSecret('Checkout secret key', 'stdin') : await readStdin()).trim()
      registerSecret(value)
    } else {
      if (given === undefined) throw new UsageError(`Missing the value of ${key}`)
      value = given.trim()
    }

    if (!value) throw new UsageError(`${key} must not be empty; nothing was changed`)
    if (setting.options && !setting.options.includes(value)) throw new UsageError(`${key} must be one of ${setting.options.join(', ')}, got ${value}`)
    if (setting.url && !/^https?:\/\/\S+$/.test(value)) throw new UsageError(`${key} must be an http(s) URL, got ${value}`)
    return value
  }
}
