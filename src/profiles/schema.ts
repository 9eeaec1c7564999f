import {HEALTH_API_VERSION} from '../services/health/client-module.js'
import {SANDBOX_KEYS, SANDBOX_ORIGIN, sandboxBaseUrls} from '../services/sandbox-defaults.js'

/*
 * The shape of profiles.json, checked by hand rather than with zod: every command reads this file
 * at start, and importing zod costs ~70 ms of CPU per start (measured with bench/startup.mjs: 'profile
 * list' 318 -> 233 ms CPU). Only the operations tables (src/services/<service>/operations.ts) load zod.
 * The shape is small and fixed; each check below names the field it rejects.
 */

export const PROFILE_NAME = /^[A-Za-z0-9][\w.-]{0,63}$/

export interface HealthSettings {
  baseUrl: string
  /** value of the `connect.sid` cookie */
  session?: string
  /** id of the signed-in user, so `me` can stand for it in paths */
  userId?: string
  /** the signed-in user's IANA time zone (from the user document), for showing times */
  timeZone?: string
  apiVersion?: string
  language?: string
}

export interface CheckoutSettings {
  baseUrl: string
  publicKey?: string
  secretKey?: string
}

export interface Profile {
  env: 'production' | 'sandbox'
  health: HealthSettings
  checkout: CheckoutSettings
}

export interface ProfileFile {
  version: 1
  active: string
  profiles: Record<string, Profile>
}

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

/** The first problem of a profile, as `path: what is wrong`, or undefined when it is valid. Unknown fields are kept. */
export function profileProblem(value: unknown, at = ''): string | undefined {
  const p = (field: string) => (at ? `${at}.${field}` : field)
  if (!isObject(value)) return `${at || 'profile'}: expected an object`
  if (value.env !== 'sandbox' && value.env !== 'production') return `${p('env')}: expected "sandbox" or "production"`
  if (!isObject(value.health)) return `${p('health')}: expected an object`
  if (!isObject(value.checkout)) return `${p('checkout')}: expected an object`
  return (
    urlProblem(value.health.baseUrl, p('health.baseUrl')) ??
    stringProblem(value.health, ['session'], p('health'), true) ??
    stringProblem(value.health, ['userId', 'timeZone', 'apiVersion', 'language'], p('health'), false) ??
    urlProblem(value.checkout.baseUrl, p('checkout.baseUrl')) ??
    stringProblem(value.checkout, ['publicKey', 'secretKey'], p('checkout'), true)
  )
}

/** Checks a parsed profiles.json: the typed file, or its first problem. */
export function checkProfileFile(value: unknown): {data: ProfileFile; problem?: undefined} | {data?: undefined; problem: string} {
  if (!isObject(value)) return {problem: 'root: expected an object'}
  if (value.version !== 1) return {problem: 'version: expected 1'}
  if (typeof value.active !== 'string') return {problem: 'active: expected a string'}
  if (!isObject(value.profiles)) return {problem: 'profiles: expected an object'}
  for (const [name, profile] of Object.entries(value.profiles)) {
    if (!PROFILE_NAME.test(name)) return {problem: `profiles.${name}: invalid profile name`}
    const problem = profileProblem(profile, `profiles.${name}`)
    if (problem) return {problem}
  }

  return {data: value as unknown as ProfileFile}
}

function isObject(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function urlProblem(value: unknown, at: string): string | undefined {
  if (typeof value !== 'string') return `${at}: must be an http(s) URL`
  try {
    const url = new URL(value)
    // new URL() alone accepts javascript: or mailto:.
    return url.protocol === 'http:' || url.protocol === 'https:' ? undefined : `${at}: must be an http(s) URL`
  } catch {
    return `${at}: must be an http(s) URL`
  }
}

function stringProblem(obj: Record<string, unknown>, keys: string[], at: string, nonEmpty: boolean): string | undefined {
  for (const key of keys) {
    const v = obj[key]
    if (v === undefined) continue
    if (typeof v !== 'string') return `${at}.${key}: expected a string`
    if (nonEmpty && v === '') return `${at}.${key}: must not be empty`
  }

  return undefined
}
