import type {Profile} from './schema.js'

/**
 * The values `profile set` may change, by the names `profile add` gives their flags. A secret is
 * never taken from the command line (shell history, `ps`): only from stdin or a hidden prompt.
 */
export interface ProfileSetting {
  secret?: boolean
  /** may be removed with --unset */
  optional?: boolean
  options?: readonly string[]
  url?: boolean
  apply(profile: Profile, value: string | undefined): void
}

export const PROFILE_SETTINGS = {
  env: {
    options: ['sandbox', 'production'],
    apply(p, v) {
      p.env = v as Profile['env']
    },
  },
  'health-url': {
    url: true,
    apply(p, v) {
      p.health.baseUrl = v ?? ''
    },
  },
  'checkout-url': {
    url: true,
    apply(p, v) {
      p.checkout.baseUrl = v ?? ''
    },
  },
  'public-key': {
    optional: true,
    apply(p, v) {
      if (v === undefined) delete p.checkout.publicKey
      else p.checkout.publicKey = v
    },
  },
  'secret-key': {
    optional: true,
    secret: true,
    apply(p, v) {
      if (v === undefined) delete p.checkout.secretKey
      else p.checkout.secretKey = v
    },
  },
  language: {
    optional: true,
    apply(p, v) {
      if (v === undefined) delete p.health.language
      else p.health.language = v
    },
  },
} satisfies Record<string, ProfileSetting>

export type ProfileSettingName = keyof typeof PROFILE_SETTINGS
export const PROFILE_SETTING_NAMES = Object.keys(PROFILE_SETTINGS) as ProfileSettingName[]
