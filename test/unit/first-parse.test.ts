/**
 * A schema's first parse in a process runs without zod's compiled parser (src/http/first-parse.ts);
 * a schema parsed again may use it. Either way the result is the same.
 */
import {describe, expect, it} from 'vitest'
import {z} from 'zod'

import {parseOptions} from '../../src/http/first-parse.js'

describe('parseOptions', () => {
  it('asks for no compiled parser at a schema\'s first parse only, schema by schema', () => {
    const event = z.object({doses: z.number(), id: z.string()})
    const plan = z.object({medications: z.array(z.string())})
    expect(parseOptions(event)).toEqual({jitless: true})
    expect(parseOptions(plan)).toEqual({jitless: true})
    expect(parseOptions(event)).toEqual({jitless: false})
    expect(parseOptions(event)).toEqual({jitless: false})
  })

  it('parses the same either way, unknown keys and refusals included', () => {
    const schema = z.object({doses: z.number().int(), id: z.string()})
    const values = [{doses: 2, extra: true, id: 'e1'}, {doses: 1.5, id: 'e2'}, {id: 3}]
    for (const value of values) expect(schema.safeParse(value, {jitless: true})).toEqual(schema.safeParse(value, {jitless: false}))
  })
})
