import type {Profile} from './schema.js'

import {maskSecret} from '../http/redact.js'

/** A profile as it may be shown: every secret masked, never the value. */
export function profileView(name: string, profile: Profile, active: boolean, source = 'file'): Record<string, unknown> {
  return {
    name,
    active,
    env: profile.env,
    source,
    healthUrl: profile.health.baseUrl,
    session: profile.health.session ? maskSecret(profile.health.session) : null,
    userId: profile.health.userId ?? null,
    language: profile.health.language ?? null,
    checkoutUrl: profile.checkout.baseUrl,
    publicKey: profile.checkout.publicKey ? maskSecret(profile.checkout.publicKey) : null,
    secretKey: profile.checkout.secretKey ? maskSecret(profile.checkout.secretKey) : null,
  }
}
