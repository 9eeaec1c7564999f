/**
 * Importing one tenant's export into another drops its sign-in sessions: A's cookie does not
 * sign in to B, unless the import asks to keep them (`?keepSessions=true`, `sandbox import
 * --keep-sessions`), as restoring a tenant's own export may.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {createSandbox, type RunningSandbox} from '../../src/sandbox/core/server.js'
import {controlHeaders} from '../helpers/control.js'

const V = {'x-ph-api-version': '3.14.0'}
const JSON_TYPE = {'content-type': 'application/json'}

describe('importing a state document into another tenant', () => {
  let sb: RunningSandbox
  beforeAll(async () => {
    sb = await createSandbox({port: 0})
  })
  afterAll(() => sb.close())

  const control = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) => {
    const res = await sb.app.inject({method, url, headers: {...controlHeaders(sb.token), ...JSON_TYPE}, payload: payload === undefined ? undefined : JSON.stringify(payload)})
    return res.json()
  }

  /** A tenant with one signed-in user; its path prefix and the session cookie. */
  const signedInTenant = async () => {
    const {id} = await control('POST', '/__sandbox/tenants', {})
    const created = await sb.app.inject({
      method: 'POST',
      url: `/t/${id}/api/users`,
      headers: {...V, ...JSON_TYPE},
      payload: {email: 'ana@example.com', password: 'a-long-password-1', givenName: 'Ana', familyName: 'Cruz', role: 'patient', timeZone: 'Asia/Manila'},
    })
    expect(created.statusCode, created.body).toBe(201)
    return {cookie: String(created.headers['set-cookie']).split(';')[0], prefix: `/t/${id}`}
  }

  const me = async (prefix: string, cookie: string) => (await sb.app.inject({method: 'GET', url: `${prefix}/api/users/me`, headers: {...V, cookie}})).statusCode

  it("drops the export's sessions: A's cookie does not sign in to B", async () => {
    const a = await signedInTenant()
    const b = await signedInTenant()
    expect(await me(a.prefix, a.cookie)).toBe(200)
    const exported = await control('GET', `${a.prefix}/__sandbox/state`)
    expect(await control('PUT', `${b.prefix}/__sandbox/state`, exported)).toEqual({imported: true, keptSessions: false})
    expect(await me(b.prefix, a.cookie)).toBe(401)
    expect(await me(b.prefix, b.cookie)).toBe(401)
    // the users came over: A's user signs in to B with its password
    const signIn = await sb.app.inject({method: 'POST', url: `${b.prefix}/api/sign-in`, headers: {...V, ...JSON_TYPE}, payload: {email: 'ana@example.com', password: 'a-long-password-1'}})
    expect(signIn.statusCode).toBe(200)
  })

  it('keeps them when asked (restoring a tenant of its own export)', async () => {
    const a = await signedInTenant()
    const exported = await control('GET', `${a.prefix}/__sandbox/state`)
    expect(await control('PUT', `${a.prefix}/__sandbox/state?keepSessions=true`, exported)).toEqual({imported: true, keptSessions: true})
    expect(await me(a.prefix, a.cookie)).toBe(200)
  })
})
