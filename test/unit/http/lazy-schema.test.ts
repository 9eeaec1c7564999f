import {describe, expect, it, vi} from 'vitest'
import * as z from 'zod'

import {lazySchema} from '../../../src/http/lazy-schema.js'
import {WebhookRecord} from '../../../src/services/checkout/operations.js'

describe('lazySchema', () => {
  it('builds the schema on first use only, once', () => {
    const build = vi.fn(() => z.looseObject({id: z.string()}))
    const schema = lazySchema(build)
    expect(build).not.toHaveBeenCalled()
    expect(schema.parse({id: 'a', extra: 1})).toEqual({id: 'a', extra: 1})
    expect(schema.safeParse({id: 1}).success).toBe(false)
    expect(build).toHaveBeenCalledTimes(1)
  })

  it('stands in for the schema inside other schemas, in zod\'s own checks and methods', () => {
    const Inner = lazySchema(() => z.string().regex(/^\d+$/))
    const Outer = z.looseObject({n: Inner.optional(), list: z.array(Inner)})
    expect(Inner instanceof z.ZodType).toBe(true)
    expect(Outer.parse({list: ['1', '22']})).toEqual({list: ['1', '22']})
    expect(Outer.safeParse({n: 'x', list: []}).error?.issues[0]?.path).toEqual(['n'])
  })

  it('keeps a service table\'s schemas working as before', () => {
    expect(WebhookRecord.parse({id: 'w1', name: 'CHECKOUT_SUCCESS', callbackUrl: 'https://shop.example/hook'})).toMatchObject({id: 'w1'})
    expect(WebhookRecord.safeParse({}).success).toBe(false)
  })
})
