/**
 * Money of the checkout service. On the wire an amount is a decimal string with exactly two
 * decimals (`"1500.00"`); inside opsctl and the sandbox it is a count of cents in a `bigint`,
 * so `0.10 + 0.20` is `0.30` and `99999999.99 + 0.01` is `100000000.00`. No float ever holds an
 * amount. Shared by the CLI (flags, rules) and the sandbox (state, rules).
 */
export type Cents = bigint

/** The wire form: digits, a dot, two digits; no sign, no exponent, no leading zeros. */
export const AMOUNT_PATTERN = /^(?:0|[1-9]\d*)\.\d{2}$/

/** What people may type in a flag: `15`, `15.5`, `15.50` (normalised to `15.50`). */
const INPUT_PATTERN = /^(\d+)(?:\.(\d{1,2}))?$/

/** A malformed or out-of-range amount. `field` names where it came from (`amount`, `items[0].amount`; a command words it as its flag). */
export class MoneyError extends Error {
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message)
    this.name = 'MoneyError'
  }
}

/**
 * Parses an amount a person typed (`15`, `15.5`, `15.50`) into cents. More than two decimals,
 * signs, exponents, commas and spaces are refused: nobody's `12.345` is silently rounded.
 */
export function parseAmount(input: string, field = 'amount'): Cents {
  const text = input.trim()
  const m = INPUT_PATTERN.exec(text)
  if (!m) {
    const why = /^\d*\.\d{3,}$/.test(text)
      ? 'at most two decimals are allowed'
      : /^[-+]/.test(text)
        ? 'it must not have a sign'
        : 'expected a decimal amount such as 1500.00'
    throw new MoneyError(`${field}: invalid amount "${input}": ${why}`, field)
  }

  const [, whole, frac = ''] = m
  return BigInt(whole) * 100n + BigInt(frac.padEnd(2, '0'))
}

/** Parses an amount that must be strictly positive (a price, a total, a refund). */
export function parsePositiveAmount(input: string, field = 'amount'): Cents {
  const cents = parseAmount(input, field)
  if (cents <= 0n) throw new MoneyError(`${field}: the amount must be greater than 0.00, got "${input}"`, field)
  return cents
}

/**
 * Reads an amount as a server sent it: normally a two-decimal string; a plain number is tolerated
 * (read through its decimal text, never through arithmetic). Undefined when it is not an amount.
 */
export function centsOf(value: unknown): Cents | undefined {
  if (typeof value === 'bigint') return value
  let text: string | undefined
  if (typeof value === 'string') text = value.trim()
  else if (typeof value === 'number' && Number.isFinite(value) && value >= 0) text = String(value)
  if (text === undefined || !INPUT_PATTERN.test(text)) return undefined
  return parseAmount(text)
}

/** Cents to the wire form: `3n` -> `"0.03"`, `150000n` -> `"1500.00"`. */
export function formatCents(cents: Cents): string {
  const negative = cents < 0n
  const abs = negative ? -cents : cents
  const whole = abs / 100n
  const frac = (abs % 100n).toString().padStart(2, '0')
  return `${negative ? '-' : ''}${whole}.${frac}`
}

/** Normalises a typed amount to the wire form: `15.5` -> `"15.50"`. */
export function normalizeAmount(input: string, field = 'amount'): string {
  return formatCents(parseAmount(input, field))
}

export function sumCents(values: Iterable<Cents>): Cents {
  let total = 0n
  for (const v of values) total += v
  return total
}

/** A line total: unit price times a whole quantity. */
export function lineTotal(unit: Cents, quantity: bigint | number): Cents {
  const q = typeof quantity === 'bigint' ? quantity : BigInt(quantity)
  return unit * q
}

/** A quantity as the service sends it: a numeric string of a whole number greater than zero. */
export function parseQuantity(input: string, field = 'quantity'): bigint {
  const text = input.trim()
  if (!/^[1-9]\d*$/.test(text)) throw new MoneyError(`${field}: invalid quantity "${input}": expected a whole number of 1 or more`, field)
  return BigInt(text)
}

/** The largest amount a JSON number carries to the cent without doubt (2^53 - 1 cents). */
const LARGEST_EXACT_NUMBER = Number.MAX_SAFE_INTEGER / 100

/**
 * An amount sent as a JSON number, as the official SDKs send them (`"value": 100`), in the wire
 * form (`"100.00"`). It is read through its shortest decimal text, never rounded: `12.345` and
 * `0.1 + 0.2` are refused, with the reason as `problem`.
 */
export function amountOfNumber(value: number): {problem: string} | {text: string} {
  if (!Number.isFinite(value) || value < 0) return {problem: 'expected an amount of 0 or more'}
  if (value > LARGEST_EXACT_NUMBER) return {problem: 'too large to be exact as a JSON number: send it as a string such as "1500.00"'}
  const text = String(value)
  if (!INPUT_PATTERN.test(text)) return {problem: `at most two decimals are allowed, got ${text}`}
  return {text: formatCents(parseAmount(text))}
}

/** A quantity sent as a JSON number (`"quantity": 1`), as the numeric string the spec shows; a negative or non-finite number is refused. */
export function quantityOfNumber(value: number): {problem: string} | {text: string} {
  return Number.isFinite(value) && value >= 0 ? {text: String(value)} : {problem: `expected a quantity of 0 or more, got ${value}`}
}

/** "quantity, sent as a numeric string": any the spec allows, as paymaya-node-sdk's default "0.00" (the CLI's own item flag asks for a whole number). */
export const QUANTITY_PATTERN = /^\d+(?:\.\d+)?$/
