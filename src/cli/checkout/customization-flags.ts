/**
 * `opsctl customize set`: the five fields of the hosted page's customization, checked before
 * anything is sent (exit 2 names the flag); a colour white text reads poorly on is a warning, never a refusal.
 */
import {UsageError} from '../../errors.js'
import {whiteTextWarning} from '../../services/checkout/contrast.js'
import {type CustomizationRequest, HEX_COLOR} from '../../services/checkout/operations.js'

export interface CustomizationFlags {
  logoUrl: string
  iconUrl: string
  appleTouchIconUrl: string
  title: string
  color: string
}

/** Recommended by the spec; another extension is allowed, with a warning. */
const IMAGE_EXTENSIONS = /\.(?:jpe?g|gif|png|svg|ico)$/i

function httpUrl(value: string, flag: string): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new UsageError(`${flag} must be an http(s) URL, got "${value}"`)
  }

  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${flag} must be an http(s) URL, got "${value}"`)
  return value
}

export function customizationFromFlags(flags: CustomizationFlags): {body: CustomizationRequest; warnings: string[]} {
  const body: CustomizationRequest = {
    logoUrl: httpUrl(flags.logoUrl, '--logo-url'),
    iconUrl: httpUrl(flags.iconUrl, '--icon-url'),
    appleTouchIconUrl: httpUrl(flags.appleTouchIconUrl, '--apple-touch-icon-url'),
    customTitle: flags.title.trim(),
    colorScheme: flags.color.trim(),
  }
  if (!body.customTitle) throw new UsageError('--title must not be empty')
  if (!HEX_COLOR.test(body.colorScheme)) throw new UsageError(`--color must be a hex colour such as #1a2b3c or #fff, got "${flags.color}"`)
  const warnings: string[] = []
  const contrast = whiteTextWarning(body.colorScheme)
  if (contrast) warnings.push(`Warning: --color: ${contrast}`)
  for (const [flag, value] of [
    ['--logo-url', body.logoUrl],
    ['--icon-url', body.iconUrl],
    ['--apple-touch-icon-url', body.appleTouchIconUrl],
  ]) {
    if (!IMAGE_EXTENSIONS.test(new URL(value).pathname)) {
      warnings.push(`Warning: ${flag} does not end in .jpg, .gif, .png, .svg or .ico (the recommended formats)`)
    }
  }

  return {body, warnings}
}
