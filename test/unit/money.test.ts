import {describe, expect, it} from 'vitest'

import {
  AMOUNT_PATTERN,
  centsOf,
  formatCents,
  lineTotal,
  MoneyError,
  normalizeAmount,
  parseAmount,
  parsePositiveAmount,
  parseQuantity,
  sumCents,
} from '../../src/services/checkout/money.js'

describe('money in integer cents', () => {
  it('adds 0.10 and 0.20 to exactly 0.30 (a float would give 0.30000000000000004)', () => {
    expect(0.1 + 0.2).not.toBe(0.3)
    expect(formatCents(parseAmount('0.10') + parseAmount('0.20'))).toBe('0.30')
    expect(formatCents(sumCents([parseAmount('0.10'), parseAmount('0.20'), parseAmount('0.70')]))).toBe('1.00')
  })

  it('keeps 99999999.99 exact, and one cent more carries over', () => {
    const big = parseAmount('99999999.99')
    expect(big).toBe(9_999_999_999n)
    expect(formatCents(big)).toBe('99999999.99')
    expect(formatCents(big + parseAmount('0.01'))).toBe('100000000.00')
    expect(formatCents(lineTotal(big, 3))).toBe('299999999.97')
  })

  it('reads what people type and writes the two-decimal wire form', () => {
    expect(normalizeAmount('15')).toBe('15.00')
    expect(normalizeAmount('15.5')).toBe('15.50')
    expect(normalizeAmount('0.05')).toBe('0.05')
    expect(formatCents(3n)).toBe('0.03')
    expect(formatCents(-250n)).toBe('-2.50')
  })

  it('refuses three decimals instead of rounding', () => {
    expect(() => parseAmount('12.345', '--amount')).toThrow(MoneyError)
    expect(() => parseAmount('12.345', '--amount')).toThrow(/--amount: invalid amount "12.345": at most two decimals/)
    expect(() => parseAmount('0.001')).toThrow(/at most two decimals/)
  })

  it('refuses negative, zero (where a positive amount is needed) and malformed amounts', () => {
    expect(() => parseAmount('-5.00')).toThrow(/must not have a sign/)
    expect(() => parsePositiveAmount('0.00', '--amount')).toThrow(/greater than 0.00/)
    expect(() => parsePositiveAmount('0')).toThrow(/greater than 0.00/)
    for (const bad of ['', 'abc', '1,000.00', '1e3', '12.', '.5', ' 1 2 ']) expect(() => parseAmount(bad)).toThrow(MoneyError)
  })

  it('matches only the exact wire form in request schemas', () => {
    expect(AMOUNT_PATTERN.test('1500.00')).toBe(true)
    expect(AMOUNT_PATTERN.test('0.10')).toBe(true)
    for (const bad of ['1500', '1500.0', '1500.000', '-1.00', '01.00', '1e2']) expect(AMOUNT_PATTERN.test(bad)).toBe(false)
  })

  it('reads amounts a server sent, tolerating numbers without float arithmetic', () => {
    expect(centsOf('1500.00')).toBe(150_000n)
    expect(centsOf(1500)).toBe(150_000n)
    expect(centsOf(0.1)).toBe(10n)
    expect(centsOf('n/a')).toBeUndefined()
    expect(centsOf(undefined)).toBeUndefined()
  })

  it('parses quantities as whole numbers of one or more', () => {
    expect(parseQuantity('3')).toBe(3n)
    expect(() => parseQuantity('0')).toThrow(MoneyError)
    expect(() => parseQuantity('1.5')).toThrow(MoneyError)
  })
})
