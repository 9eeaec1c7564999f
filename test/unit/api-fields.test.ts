/** `opsctl api` fields (-f/-F) as a body and as a query, its -i head, and the row a raw path is a call of. */
import {describe, expect, it} from 'vitest'

import {bodyOf, queryOf, readFields} from '../../src/cli/api-fields.js'
import {responseHead} from '../../src/cli/api-head.js'
import {UsageError} from '../../src/errors.js'
import {rowAt} from '../../src/http/operation.js'
import {checkoutService} from '../../src/services/checkout/operations.js'
import {healthService} from '../../src/services/health/operations.js'

const f = (...pairs: string[]) => pairs.map((pair) => ({pair, typed: false}))
const F = (...pairs: string[]) => pairs.map((pair) => ({pair, typed: true}))
const body = async (given: {pair: string; typed: boolean}[]) => structuredClone(bodyOf(await readFields(given)))

describe('-f and -F', () => {
  it('-F types true, false, null and integers; decimals, leading zeros and the rest stay strings; -f is always a string', async () => {
    expect(await body(F('a=true', 'b=false', 'c=null', 'd=42', 'e=-7', 'g=1.00', 'h=007', 'i=12345678901234567890', 'j=text', 'k='))).toEqual({
      a: true,
      b: false,
      c: null,
      d: 42,
      e: -7,
      g: '1.00',
      h: '007',
      i: '12345678901234567890',
      j: 'text',
      k: '',
    })
    expect(await body(f('a=true', 'd=42', 'x=a=b'))).toEqual({a: 'true', d: '42', x: 'a=b'})
  })

  it('nests with [name], appends with [], and starts the next object of a list when its last one has the key', async () => {
    expect(
      await body([
        ...f('amount[value]=1.00', 'amount[currency]=PHP', 'tags[]=a'),
        ...F('tags[]=2'),
        ...f('items[][name]=Tea', 'items[][size]=L', 'items[][name]=Cake', 'deep[a][b][c]=x'),
      ]),
    ).toEqual({
      amount: {value: '1.00', currency: 'PHP'},
      tags: ['a', 2],
      items: [{name: 'Tea', size: 'L'}, {name: 'Cake'}],
      deep: {a: {b: {c: 'x'}}},
    })
  })

  it('keeps the order typed across -f and -F (items[][...] groups by it)', async () => {
    const given = [...f('items[][name]=Tea'), ...F('items[][qty]=1'), ...f('items[][name]=Cake'), ...F('items[][qty]=2')]
    expect(await body(given)).toEqual({items: [{name: 'Tea', qty: 1}, {name: 'Cake', qty: 2}]})
  })

  it('__proto__ is a key like any other', async () => {
    const made = bodyOf(await readFields(f('__proto__[polluted]=yes')))
    expect(JSON.stringify(made)).toBe('{"__proto__":{"polluted":"yes"}}')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  const refused: [string, {pair: string; typed: boolean}[], RegExp][] = [
    ['no =', f('novalue'), /-f expects key=value, got "novalue"/],
    ['an empty key', F('=v'), /-F expects key=value/],
    ['a malformed key', f('a[b=c'), /a key is a name with optional \[sub] or \[] parts/],
    ['a list of lists', f('a[][]=1'), /a list of lists/],
    ['a key given twice', f('a=1', 'a=2'), /The field a is given twice; use a\[]=... for a list/],
    ['a value then an object', f('a=1', 'a[b]=2'), /The field a\[b] does not fit/],
    ['a list then an object', f('a[]=1', 'a[b]=2'), /The field a\[b] does not fit/],
    ['a key nested deeper than --data may be', f(`a${'[b]'.repeat(64)}=1`), /nested 65 levels deep; at most 64/],
    ['two readers of stdin', F('a=@-', 'b=@-'), /reads stdin \(@-\) once/],
    ['a missing file', F('a=@/nonexistent/file'), /Cannot read \/nonexistent\/file: ENOENT/],
  ]
  for (const [what, given, message] of refused) {
    it(`refuses ${what}`, async () => {
      const error = await readFields(given).then((fields) => bodyOf(fields)).catch((error_: unknown) => error_)
      expect(error).toBeInstanceOf(UsageError)
      expect((error as Error).message).toMatch(message)
    })
  }

  it('as a query: flat keys, [] and repeated keys repeat the parameter, null is empty; nesting is refused', async () => {
    expect({...queryOf(await readFields([...f('s[]=cough', 's[]=wheeze', 'x=1', 'x=2'), ...F('n=3', 'z=null')]))}).toEqual({
      s: ['cough', 'wheeze'],
      x: ['1', '2'],
      n: ['3'],
      z: [''],
    })
    expect(() => queryOf([{key: 'a[b]', path: ['a', 'b'], value: 'c'}])).toThrow(/cannot go in a query/)
  })
})

describe('-i head', () => {
  it('status line, headers with cookies masked, control characters escaped, then an empty line', () => {
    expect(
      responseHead(201, {'content-type': 'application/json', 'set-cookie': ['connect.sid=s%3Asecret; Path=/; HttpOnly'], 'x-note': 'a\u001B]0;t\u0007b'}),
    ).toBe(
      [
        'HTTP/1.1 201 Created',
        'content-type: application/json',
        'set-cookie: connect.sid=[REDACTED]; Path=/; HttpOnly',
        String.raw`x-note: a\e]0;t\x07b`,
        '',
        '',
      ].join('\n'),
    )
  })
})

describe('rowAt: the row a raw request is a call of', () => {
  it('matches the method and the template, the query aside; the more fixed segments win', () => {
    expect(rowAt(healthService.list, 'GET', '/api/users/me/events?startDate=x')?.id).toBe('getEvents')
    expect(rowAt(healthService.list, 'GET', '/api/users/u-1/events/')?.id).toBe('getEvents')
    expect(rowAt(healthService.list, 'GET', '/api/users/me')?.id).toBe('getUser')
    expect(rowAt(healthService.list, 'GET', '/api/users/u-1')?.id).toBe('getUserById')
    expect(rowAt(healthService.list, 'POST', '/api/users/me/events')?.id).toBe('addEvent')
    expect(rowAt(healthService.list, 'GET', '/api/users//events')).toBeUndefined()
    expect(rowAt(checkoutService.list, 'GET', '/v1/webhooks')?.id).toBe('listWebhooks')
    expect(rowAt(checkoutService.list, 'GET', '/v1/nothing')).toBeUndefined()
  })
})
