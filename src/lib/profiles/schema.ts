import {z} from 'zod'

import {HEALTH_API_VERSION} from '../http/services.js'
import {SANDBOX_KEYS, SANDBOX_ORIGIN, sandboxBaseUrls} from '../sandbox-defaults.js'

export const PROFILE_NAME = /^[A-Za-z0-9][\w.-]{0,63}$/

/** Base URLs are http(s) only (z.url() alone accepts javascript: or mailto:). */
const BaseUrl = z.url({protocol: /^https?$/, error: 'must be an http(s) URL'})

export const HealthSettings = z.object({
  baseUrl: BaseUrl,
  session: z.string().min(1).optional(),
  /** id of the signed-in user, so `me` can stand for it in paths */
  userId: z.string().optional(),
  apiVersion: z.string().optional(),
  language: z.string().optional(),
})

export const CheckoutSettings = z.object({
  baseUrl: BaseUrl,
  publicKey: z.string().min(1).optional(),
  secretKey: z.string().min(1).optional(),
})

export const Profile = z.object({
  env: z.enum(['sandbox', 'production']),
  health: HealthSettings,
  checkout: CheckoutSettings,
})
export type Profile = z.infer<typeof Profile>

export const ProfileFile = z.object({
  version: z.literal(1),
  active: z.string(),
  profiles: z.record(z.string().regex(PROFILE_NAME), Profile),
})
export type ProfileFile = z.infer<typeof ProfileFile>

export const BUILTIN_PROFILE = 'sandbox'

export function sandboxProfile(origin = SANDBOX_ORIGIN): Profile {
  const urls = sandboxBaseUrls(origin)
  return {
    env: 'sandbox',
    health: {baseUrl: urls.health, apiVersion: HEALTH_API_VERSION},
    checkout: {baseUrl: urls.checkout, ...SANDBOX_KEYS},
  }
}

export function initialFile(): ProfileFile {
  return {version: 1, active: BUILTIN_PROFILE, profiles: {[BUILTIN_PROFILE]: sandboxProfile()}}
}
