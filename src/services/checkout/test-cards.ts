/**
 * The published test cards of the sandbox's hosted payment page. The sandbox decides a payment's
 * outcome from them; `opsctl checkout pay` uses them to act as a buyer. They are test numbers:
 * they pay for nothing anywhere else.
 */
export const TEST_CARDS = {
  /** Mastercard, succeeds */
  mastercardSuccess: '5123456789012346',
  /** VISA, succeeds */
  visaSuccess: '4123450131001381',
  /** Mastercard, declined */
  mastercardDeclined: '5204730000002662',
} as const

/** Cards that pay. Every other well-formed number that passes the Luhn check is declined. */
export const SUCCEEDING_CARDS: ReadonlySet<string> = new Set([TEST_CARDS.mastercardSuccess, TEST_CARDS.visaSuccess])

export type CardScheme = 'MASTERCARD' | 'UNKNOWN' | 'VISA'

/** The scheme a card number belongs to, from its leading digits (VISA 4, Mastercard 51-55 and 2221-2720). */
export function cardScheme(number: string): CardScheme {
  if (number.startsWith('4')) return 'VISA'
  if (/^5[1-5]/.test(number)) return 'MASTERCARD'
  const six = Number(number.slice(0, 6))
  if (number.length >= 6 && six >= 222_100 && six <= 272_099) return 'MASTERCARD'
  return 'UNKNOWN'
}

/** The only part of a card number opsctl and the sandbox ever keep or show. */
export function lastFour(number: string): string {
  return number.replaceAll(/\D/g, '').slice(-4)
}

/** Card data as typed: 13 to 19 digits (spaces and dashes ignored), MM/YY, 3 or 4 digit CVC. */
export function normalizeCardNumber(input: string): string | undefined {
  const digits = input.replaceAll(/[\s-]/g, '')
  return /^\d{13,19}$/.test(digits) ? digits : undefined
}

export function parseExpiry(input: string): {month: number; year: number} | undefined {
  const m = /^(0[1-9]|1[0-2])\s*\/\s*(\d{2}|\d{4})$/.exec(input.trim())
  if (!m) return undefined
  const year = Number(m[2].length === 2 ? `20${m[2]}` : m[2])
  return {month: Number(m[1]), year}
}

/** A card is valid through the last day of its expiry month. */
export function isCardExpired(expiry: {month: number; year: number}, now: Date): boolean {
  const firstOfNextMonth = Date.UTC(expiry.year, expiry.month, 1)
  return now.getTime() >= firstOfNextMonth
}

export const CVC_PATTERN = /^\d{3,4}$/

/** The check digit every real card number carries (Luhn, mod 10): it catches a mistyped digit. */
export function passesLuhn(digits: string): boolean {
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i])
    if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2
    sum += digit
  }

  return digits.length > 0 && sum % 10 === 0
}
