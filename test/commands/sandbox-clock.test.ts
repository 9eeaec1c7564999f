import {describe, expect, it} from 'vitest'

import SandboxClock from '../../src/commands/sandbox/clock.js'
import {isolatedWithMockedServices, runCommand} from '../helpers/command.js'

const ORIGIN = 'http://127.0.0.1:4010'

const harness = isolatedWithMockedServices()

describe('opsctl sandbox clock: bounds', () => {
  it('refuses a negative or a huge --advance with exit 2 and sends nothing', async () => {
    for (const [advance, message] of [
      ['-1h', '--advance must not be negative'],
      ['300000000d', '--advance may move the clock at most 10 years (3653d)'],
      ['3654d', '--advance may move the clock at most 10 years (3653d)'],
    ]) {
      const result = await runCommand(SandboxClock, ['--advance', advance])
      expect([advance, result.code]).toEqual([advance, 2])
      expect(result.stderr).toContain(message)
      expect(result.stderr.trim().split('\n')).toHaveLength(1)
    }

    expect(harness.services.calls()).toEqual([])
  })

  it('refuses --set more than 10 years from today with exit 2 and sends nothing', async () => {
    for (const set of ['9999-01-01T00:00:00Z', '1990-01-01T00:00:00Z']) {
      const result = await runCommand(SandboxClock, ['--set', set])
      expect([set, result.code]).toEqual([set, 2])
      expect(result.stderr).toMatch(/--set must be within 10 years of the real time \(\d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d\)/)
    }

    expect(harness.services.calls()).toEqual([])
  })

  it('sends an advance of up to 10 years to the sandbox', async () => {
    harness.services.agent
      .get(ORIGIN)
      .intercept({method: 'POST', path: '/__sandbox/clock'})
      .reply(200, {now: '2036-11-20T00:00:00.000Z'}, {headers: {'content-type': 'application/json'}})
    const result = await runCommand(SandboxClock, ['--advance', '3653d', '--json'])
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({now: '2036-11-20T00:00:00.000Z'})
    expect(harness.services.calls()).toMatchObject([{method: 'POST', path: '/__sandbox/clock', body: {advance: '3653d'}}])
  })

  it('--dry-run prints the control call as curl and sends nothing', async () => {
    const result = await runCommand(SandboxClock, ['--advance', '1h', '--dry-run'])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(`curl -sS -X POST '${ORIGIN}/__sandbox/clock'`)
    expect(result.stdout).toContain(`--data '{"advance":"1h"}'`)
    const json = await runCommand(SandboxClock, ['--dry-run', '--json'])
    expect(JSON.parse(json.stdout)).toMatchObject({dryRun: true, request: {method: 'GET', url: `${ORIGIN}/__sandbox/clock`}})
    expect(harness.services.calls()).toEqual([])
  })
})
