/**
 * Paging flags keep oclif's own types (`--limit` is one number, not the multiple-value overload),
 * checked by the type-check of the tests; and a query number is read from its text or refused.
 */
import type {Interfaces} from '@oclif/core'

import {describe, expect, expectTypeOf, it} from 'vitest'
import * as z from 'zod'

import {pagingFlags} from '../../src/cli/paging.js'
import {healthOps} from '../../src/services/health/operations.js'
import {QueryBool, QueryList, QueryNumber} from '../../src/services/query.js'

describe('paging flags', () => {
  it('type --all, --limit and the token flag as oclif infers them', () => {
    const flags = pagingFlags(healthOps.getEvents)
    type Parsed = Interfaces.InferredFlags<typeof flags>
    expectTypeOf<Parsed['limit']>().toEqualTypeOf<number | undefined>()
    expectTypeOf<Parsed['all']>().toEqualTypeOf<boolean>()
    expectTypeOf<Parsed['paging-token']>().toEqualTypeOf<string | undefined>()
    expect(Object.keys(flags)).toEqual(['all', 'limit', 'paging-token'])
  })
})

describe('query values', () => {
  it('a number from the client or from its text; other text is refused, never 0 or NaN', () => {
    const pageSize = QueryNumber.pipe(z.number().int().min(1))
    expect(pageSize.parse(50)).toBe(50)
    expect(pageSize.parse('50')).toBe(50)
    expect(QueryNumber.parse('-2.5')).toBe(-2.5)
    for (const bad of ['', ' ', '1e3', '0x10', '50abc', 'NaN']) expect(QueryNumber.safeParse(bad).success, bad).toBe(false)
    expect(pageSize.safeParse('0').success).toBe(false)
    expect(pageSize.safeParse('2.5').success).toBe(false)
  })

  it('booleans and lists beside it', () => {
    expect(QueryBool.parse('true')).toBe(true)
    expect(QueryList.parse('a')).toEqual(['a'])
  })
})
