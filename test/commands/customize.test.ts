import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import CustomizeGet from '../../src/commands/customize/get.js'
import CustomizeRemove from '../../src/commands/customize/remove.js'
import CustomizeSet from '../../src/commands/customize/set.js'
import {BASE, JSON_HEADERS} from '../helpers/checkout.js'
import {type CommandHarness, commandHarness} from '../helpers/command.js'

let h: CommandHarness

beforeEach(async () => {
  h = await commandHarness()
})
afterEach(async () => {
  await h.close()
})

const FLAGS = {
  '--logo-url': 'https://cdn.example/logo.png',
  '--icon-url': 'https://cdn.example/favicon.ico',
  '--apple-touch-icon-url': 'https://cdn.example/touch.png',
  '--title': 'Tea Shop',
  '--color': '#0a7d3b',
}
const argv = (overrides: Record<string, string> = {}) => Object.entries({...FLAGS, ...overrides}).flat()
const BODY = {
  logoUrl: 'https://cdn.example/logo.png',
  iconUrl: 'https://cdn.example/favicon.ico',
  appleTouchIconUrl: 'https://cdn.example/touch.png',
  customTitle: 'Tea Shop',
  colorScheme: '#0a7d3b',
}

describe('customize commands', () => {
  it('set maps the five flags to the five fields', async () => {
    h.pool.intercept({path: `${BASE}/customizations`, method: 'POST'}).reply(200, BODY, {headers: JSON_HEADERS})
    const out = await h.run(CustomizeSet, argv())
    expect(out.code).toBe(0)
    expect(h.calls()[0].body).toEqual(BODY)
    expect(out.stdout).toMatch(/colorScheme\t#0a7d3b/)
  })

  it('refuses a bad colour before sending (exit 2)', async () => {
    for (const color of ['green', '#12345', '0a7d3b', '#ggg']) {
      const out = await h.run(CustomizeSet, argv({'--color': color}))
      expect(out.code).toBe(2)
      expect(out.stderr).toContain('--color must be a hex colour')
    }

    expect(h.calls()).toEqual([])
  })

  it('refuses a URL that is not http(s) and a missing field before sending (exit 2)', async () => {
    const out = await h.run(CustomizeSet, argv({'--icon-url': 'file:///etc/logo.png'}))
    expect(out.code).toBe(2)
    expect(out.stderr).toContain('--icon-url must be an http(s) URL')
    const missing = argv().slice(0, 8)
    expect((await h.run(CustomizeSet, missing)).code).toBe(2)
    expect(h.calls()).toEqual([])
  })

  it('warns (but sends) when an image is not in a recommended format', async () => {
    h.pool.intercept({path: `${BASE}/customizations`, method: 'POST'}).reply(200, BODY, {headers: JSON_HEADERS})
    const out = await h.run(CustomizeSet, argv({'--logo-url': 'https://cdn.example/logo.webp'}))
    expect(out.code).toBe(0)
    expect(out.stderr).toContain('--logo-url does not end in')
  })

  it('get shows it; none set is exit 4 (PY0065)', async () => {
    h.pool.intercept({path: `${BASE}/customizations`, method: 'GET'}).reply(200, BODY, {headers: JSON_HEADERS})
    expect(JSON.parse((await h.run(CustomizeGet, ['--json'])).stdout)).toEqual(BODY)
    h.pool
      .intercept({path: `${BASE}/customizations`, method: 'GET'})
      .reply(404, {code: 'PY0065', message: 'No customization is set'}, {headers: JSON_HEADERS})
    const out = await h.run(CustomizeGet, [])
    expect(out.code).toBe(4)
    expect(out.stderr).toContain('No customization is set')
  })

  it('remove needs consent, then sends one DELETE', async () => {
    expect((await h.run(CustomizeRemove, [])).code).toBe(2)
    expect(h.calls()).toEqual([])
    h.pool
      .intercept({path: `${BASE}/customizations`, method: 'DELETE'})
      .reply(200, {message: 'Customization removed'}, {headers: JSON_HEADERS})
    const out = await h.run(CustomizeRemove, ['--yes', '--json'])
    expect(JSON.parse(out.stdout)).toEqual({removed: true, message: 'Customization removed'})
  })
})
