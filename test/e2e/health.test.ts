/**
 * The health service end to end: the built CLI as real processes against a real sandbox on a free
 * loopback port. The sandbox clock is fixed at the start so dates and metrics are known; the
 * metric values are the hand-computed ones of test/unit/health-metrics.test.ts, through HTTP.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type Cli, cliFor, type Sandbox, startSandbox} from './harness.js'

const PASSWORD = 'e2e-Pass-9f3k'
const SECOND_PASSWORD = 'e2e-Other-2j7q'

let sandbox: Sandbox
let cli: Cli
let userId: string
/** event ids by label */
const ids: Record<string, string> = {}

/** Only the "Error:" line and its "Try this" hints: one line of error. */
function errorLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l.trim() && !l.startsWith('  Try this:'))
}

beforeAll(async () => {
  sandbox = await startSandbox(['--clock', '2026-03-05T04:00:00Z'])
  cli = cliFor(sandbox)
})

afterAll(async () => {
  await sandbox?.stop()
  cli?.cleanup()
})

// Each step runs several CLI processes (about 0.5-1 s each on two cores, slower side by side with another worker).
describe('health service through the CLI and the sandbox', {timeout: 120_000}, () => {
  it('users create: stores the session in the profile; the password is never shown', async () => {
    const r = await cli.run(
      ['users', 'create', '--type', 'patient', '--email', 'eve@example.com', '--given-name', 'Eve', '--family-name', 'Reyes'].concat([
        '--time-zone',
        'Asia/Manila',
        '--language',
        'en-PH',
        '--password-stdin',
        '--json',
      ]),
      {input: PASSWORD + '\n'},
    )
    expect(r.code, r.stderr).toBe(0)
    const user = JSON.parse(r.stdout)
    expect(user).toMatchObject({email: 'eve@example.com', role: 'patient', givenName: 'Eve', timeZone: 'Asia/Manila', language: 'en-PH'})
    expect(user.id).toMatch(/^[\da-f]{24}$/)
    userId = user.id
    const profile = JSON.parse(readFileSync(join(cli.configDir, 'profiles.json'), 'utf8')).profiles.sandbox
    expect(profile.health.userId).toBe(userId)
    expect(profile.health.session).toMatch(/^[\w-]{20,}$/)
    expect(r.stdout + r.stderr).not.toContain(PASSWORD)
    expect(r.stdout + r.stderr).not.toContain(profile.health.session)
  })

  it('users me / users get me / users login; a wrong password is exit 3', async () => {
    expect((await cli.json(['users', 'me'])).id).toBe(userId)
    expect((await cli.json(['users', 'get', 'me'])).email).toBe('eve@example.com')
    expect((await cli.json(['users', 'get', userId])).id).toBe(userId)
    const wrong = await cli.run(['users', 'login', '--email', 'eve@example.com', '--password-stdin'], {input: 'not-it'})
    expect(wrong.code).toBe(3)
    expect(errorLines(wrong.stderr)).toEqual([
      expect.stringMatching(/^Error: Wrong email or password \[HTTP 401, code INVALID_CREDENTIALS, request id /),
    ])
    const ok = await cli.run(['users', 'login', '--email', 'EVE@example.com', '--password-stdin', '--json'], {input: PASSWORD})
    expect(ok.code, ok.stderr).toBe(0)
    expect(JSON.parse(ok.stdout).id).toBe(userId)
  })

  it('--language goes out as accept-language and --verbose shows content-language', async () => {
    const r = await cli.run(['users', 'me', '--language', 'fil-PH', '--verbose'])
    expect(r.code).toBe(0)
    expect(r.stderr).toContain('accept-language: fil-PH')
    expect(r.stderr).toContain('content-language: fil-PH')
    expect(r.stderr).toContain('cookie: connect.sid=[REDACTED]')
  })

  it('plan medication add (the controller the metrics use)', async () => {
    const r = await cli.json([
      'plan',
      'medication',
      'add',
      'me',
      '--medication-id',
      'med-fluticasone',
      '--usage',
      '08:00=2',
      '--usage',
      '20:00=2',
    ])
    expect(r.added).toBe('med-fluticasone')
    const me = await cli.json(['users', 'me'])
    expect(me.plan.medications).toEqual([
      {
        medicationId: 'med-fluticasone',
        medicationType: 'controller',
        usageList: [
          {hour: 8, minute: 0, doses: 2},
          {hour: 20, minute: 0, doses: 2},
        ],
        sensors: [],
      },
    ])
  })

  it('events add x 11: the known set, with nightEvent derived in Asia/Manila', async () => {
    // med-salbutamol is not on this user's plan: recorded without the plan check
    const rescue = ['--medication-id', 'med-salbutamol', '--medication-type', 'rescue', '--no-plan-check']
    const controller = ['--medication-id', 'med-fluticasone', '--medication-type', 'controller', '--source', 'sensor']
    const adds: [string, string[]][] = [
      ['E0', [...rescue, '--date', '2026-02-20T10:00:00+08:00']],
      ['E0b', [...rescue, '--date', '2026-02-25T22:15:00+08:00']],
      [
        'E1',
        [
          ...rescue,
          '--date',
          '2026-03-02T23:30:00+08:00',
          '--source',
          'sensor',
          '--symptom',
          'cough',
          '--symptom',
          'wokenAtNight',
          '--trigger',
          'coldAir',
          '--address',
          'Makati',
          '--address-confirmed',
        ],
      ],
      ['E2', [...rescue, '--date', '2026-03-03T00:30:00+08:00', '--symptom', 'cough', '--preemptive']],
      ['E3', [...rescue, '--date', '2026-03-03T07:15:00+08:00', '--symptom', 'wheeze', '--trigger', 'exercise']],
      ['E4', [...rescue, '--date', '2026-03-03T13:00:00+08:00', '--source', 'sensor', '--trigger', 'exercise']],
      ['E5', [...rescue, '--date', '2026-03-04T19:00:00+08:00']],
      ['C1', [...controller, '--date', '2026-03-02T08:00:00+08:00', '--doses', '2']],
      ['C2', [...controller, '--date', '2026-03-02T20:00:00+08:00', '--doses', '2']],
      ['C3', [...controller, '--date', '2026-03-03T08:00:00+08:00', '--doses', '2']],
    ]
    // and one through --data from stdin
    const viaData = await cli.run(['events', 'add', 'me', '--data', '-', '--json'], {
      input: JSON.stringify({
        date: '2026-03-04T08:00:00+08:00',
        medicationId: 'med-fluticasone',
        medicationType: 'controller',
        source: 'sensor',
        doses: 3,
      }),
    })
    expect(viaData.code, viaData.stderr).toBe(0)
    ids.C4 = JSON.parse(viaData.stdout).id

    const results = await Promise.all(adds.map(([, argv]) => cli.json(['events', 'add', 'me', ...argv])))
    for (const [i, [label]] of adds.entries()) ids[label] = results[i].id
    const byLabel = Object.fromEntries(adds.map(([label], i) => [label, results[i]]))
    expect(byLabel.E1).toMatchObject({
      date: '2026-03-02T15:30:00.000Z',
      nightEvent: true,
      source: 'sensor',
      symptoms: ['cough', 'wokenAtNight'],
      triggers: ['coldAir'],
      address: 'Makati',
      addressConfirmed: true,
      preemptive: false,
      doses: 1,
    })
    expect(byLabel.E2).toMatchObject({nightEvent: true, preemptive: true, source: 'manual'})
    expect(byLabel.E3.nightEvent).toBe(false)
    expect(byLabel.E0b.nightEvent).toBe(true)
  })

  it('events list: newest first, and each filter keeps exactly the matching events', async () => {
    const list = async (...flags: string[]) => {
      const r = await cli.json(['events', 'list', 'me', ...flags])
      return r.events.map((e: any) => Object.entries(ids).find(([, id]) => id === e.id)?.[0])
    }

    const all = await list()
    expect(all).toEqual(['E5', 'C4', 'E4', 'C3', 'E3', 'E2', 'E1', 'C2', 'C1', 'E0b', 'E0'])
    const cases: [string[], string[]][] = [
      [
        ['--start', '2026-03-03T00:00:00+08:00'],
        ['E5', 'C4', 'E4', 'C3', 'E3', 'E2'],
      ],
      [
        ['--end', '2026-03-02T08:00:00+08:00'],
        ['C1', 'E0b', 'E0'],
      ],
      [
        ['--start', '2026-03-02', '--end', '2026-03-02T23:59:59Z'],
        ['E3', 'E2', 'E1', 'C2', 'C1'],
      ],
      [
        ['--medication-type', 'controller'],
        ['C4', 'C3', 'C2', 'C1'],
      ],
      [
        ['--medication-id', 'med-fluticasone', '--medication-id', 'med-other'],
        ['C4', 'C3', 'C2', 'C1'],
      ],
      [['--night'], ['E2', 'E1', 'E0b']],
      [
        ['--no-night', '--medication-type', 'rescue'],
        ['E5', 'E4', 'E3', 'E0'],
      ],
      [['--preemptive'], ['E2']],
      [
        ['--no-preemptive', '--medication-type', 'rescue', '--source', 'manual'],
        ['E5', 'E3', 'E0b', 'E0'],
      ],
      [
        ['--source', 'sensor', '--medication-type', 'rescue'],
        ['E4', 'E1'],
      ],
      [
        ['--symptom', 'cough'],
        ['E2', 'E1'],
      ],
      [
        ['--symptom', 'wheeze', '--symptom', 'wokenAtNight'],
        ['E3', 'E1'],
      ],
      [
        ['--trigger', 'exercise'],
        ['E4', 'E3'],
      ],
      [['--address-confirmed'], ['E1']],
      [
        ['--no-address-confirmed', '--medication-type', 'controller'],
        ['C4', 'C3', 'C2', 'C1'],
      ],
      [
        ['--limit', '3'],
        ['E5', 'C4', 'E4'],
      ],
    ]
    const got = await Promise.all(cases.map(([flags]) => list(...flags)))
    for (const [i, [flags, expected]] of cases.entries()) expect(got[i], flags.join(' ')).toEqual(expected)
  })

  it('events update, then events get shows the change', async () => {
    const r = await cli.run(['events', 'update', 'me', ids.E0, '--doses', '2', '--symptom', 'chestTightness', '--address', 'Pasig'])
    expect(r.code, r.stderr).toBe(0)
    const e = await cli.json(['events', 'get', 'me', ids.E0])
    expect(e).toMatchObject({id: ids.E0, doses: 2, symptoms: ['chestTightness'], address: 'Pasig', date: '2026-02-20T02:00:00.000Z'})
    expect(e.updatedDate >= e.createdDate).toBe(true)
  })

  const range = ['--start', '2026-03-02T00:00:00+08:00', '--end', '2026-03-04T23:59:59+08:00']

  it('metrics get daily: computed from the stored events in the user time zone', async () => {
    const r = await cli.json([
      'metrics',
      'get',
      'me',
      '--name',
      'eventsRescue,eventsRescueNight,eventsRescueNightManual,eventsControllerAdministered,eventsControllerPrescribed,rescueBaseline',
      '--period',
      'daily',
      ...range,
    ])
    expect(r.timeZone).toBe('Asia/Manila')
    expect(r.periods.daily).toEqual([
      {
        date: '2026-03-02',
        values: {
          eventsRescue: 1,
          eventsRescueNight: 1,
          eventsRescueNightManual: 0,
          eventsControllerAdministered: 4,
          eventsControllerPrescribed: 4,
          rescueBaseline: 0.14,
        },
      },
      {
        date: '2026-03-03',
        values: {
          eventsRescue: 3,
          eventsRescueNight: 1,
          eventsRescueNightManual: 1,
          eventsControllerAdministered: 2,
          eventsControllerPrescribed: 4,
          rescueBaseline: 0.21,
        },
      },
      {
        date: '2026-03-04',
        values: {
          eventsRescue: 1,
          eventsRescueNight: 0,
          eventsRescueNightManual: 0,
          eventsControllerAdministered: 3,
          eventsControllerPrescribed: 4,
          rescueBaseline: 0.43,
        },
      },
    ])
  })

  it('metrics get weekly and monthly', async () => {
    const weekly = await cli.json(['metrics', 'get', 'me', '--name', 'adherencePercent', '--period', 'weekly', ...range])
    expect(weekly.periods.weekly).toEqual([{date: '2026-03-02', values: {adherencePercent: 75}}])
    const monthly = await cli.json([
      'metrics',
      'get',
      'me',
      '--name',
      'trendTimeOfDayNight,trendDayOfWeekTuesday,trendSymptomCough,trendTriggerExercise',
      '--period',
      'monthly',
      ...range,
    ])
    expect(monthly.periods.monthly).toEqual([
      {date: '2026-03-01', values: {trendTimeOfDayNight: 40, trendDayOfWeekTuesday: 60, trendSymptomCough: 40, trendTriggerExercise: 40}},
    ])
  })

  it('metrics get series from ACT results seeded through /__sandbox/health/act; default range is 30 days before now', async () => {
    await sandbox.control('health/act', {userId, score: 18, kind: 'adult', date: '2026-03-02T01:00:00Z'})
    await sandbox.control('health/act', {userId, score: 12, kind: 'child', date: '2026-03-03T01:00:00Z'})
    await sandbox.control('health/act', {userId, score: 9, kind: 'adult', date: '2026-01-15T01:00:00Z'}) // before the default range
    const r = await cli.json(['metrics', 'get', 'me', '--name', 'actAdult,actChild', '--period', 'series'])
    expect(r.startDate.slice(0, 10)).toBe('2026-02-03')
    expect(r.periods.series).toEqual([
      {date: '2026-03-02T01:00:00.000Z', values: {actAdult: 18, actChild: null}},
      {date: '2026-03-03T01:00:00.000Z', values: {actAdult: null, actChild: 12}},
    ])
    const chart = await cli.run(['metrics', 'get', 'me', '--name', 'eventsRescue', ...range, '--chart'])
    expect(chart.code).toBe(0)
    expect(chart.stdout).toContain('eventsRescue (daily)  2026-03-02 .. 2026-03-04  min 1  max 3')
  })

  it('plan medication add/update, plan sensor add/delete, plan medication delete', async () => {
    await cli.json([
      'plan',
      'medication',
      'add',
      'me',
      '--medication-id',
      'med-budesonide',
      '--usage',
      '09:00=1',
      '--sensor',
      'aa:bb:cc:dd:ee:01=dpi-sensor',
    ])
    await cli.json(['plan', 'medication', 'update', 'me', 'med-budesonide', '--usage', '07:30=2', '--usage', '19:30=2'])
    await cli.json([
      'plan',
      'sensor',
      'add',
      'me',
      'med-budesonide',
      '--mac',
      'AA-BB-CC-DD-EE-02',
      '--model',
      'dpi-sensor',
      '--battery-level',
      '64',
    ])
    let med = (await cli.json(['users', 'me'])).plan.medications.find((m: any) => m.medicationId === 'med-budesonide')
    expect(med).toEqual({
      medicationId: 'med-budesonide',
      medicationType: 'controller',
      usageList: [
        {hour: 7, minute: 30, doses: 2},
        {hour: 19, minute: 30, doses: 2},
      ],
      sensors: [
        {mac: 'AA:BB:CC:DD:EE:01', model: 'dpi-sensor'},
        {mac: 'AA:BB:CC:DD:EE:02', model: 'dpi-sensor', batteryLevel: 64},
      ],
    })

    // the same MAC on a second medication: refused by the service (400 -> exit 5), naming the field
    const taken = await cli.run(['plan', 'sensor', 'add', 'me', 'med-fluticasone', '--mac', 'AA:BB:CC:DD:EE:01'])
    expect(taken.code).toBe(5)
    expect(errorLines(taken.stderr)).toEqual([
      expect.stringMatching(/^Error: Sensor AA:BB:CC:DD:EE:01 is already attached to another medication \(mac: already attached/),
    ])

    await cli.json(['plan', 'sensor', 'delete', 'me', 'med-budesonide', 'aa:bb:cc:dd:ee:01', '--yes'])
    med = (await cli.json(['users', 'me'])).plan.medications.find((m: any) => m.medicationId === 'med-budesonide')
    expect(med.sensors.map((s: any) => s.mac)).toEqual(['AA:BB:CC:DD:EE:02'])
    const del = await cli.json(['plan', 'medication', 'delete', 'me', 'med-budesonide', '--yes'])
    expect(del).toEqual({deleted: 'med-budesonide'})
    expect((await cli.json(['users', 'me'])).plan.medications.map((m: any) => m.medicationId)).toEqual(['med-fluticasone'])
    const again = await cli.run(['plan', 'medication', 'delete', 'me', 'med-budesonide', '--yes'])
    expect(again.code).toBe(4)
  })

  it('groups config by name and by id, without a session', async () => {
    const byName = await cli.json(['groups', 'config', 'demo-clinic'])
    expect(byName).toMatchObject({name: 'demo-clinic', timeZone: 'Asia/Manila'})
    expect(byName.medications.map((m: any) => m.id)).toContain('med-fluticasone')
    const anonymous = cliFor(sandbox)
    try {
      expect((await anonymous.json(['groups', 'config', byName.id])).name).toBe('demo-clinic')
      expect((await anonymous.run(['groups', 'config', 'no-such-group'])).code).toBe(4)
    } finally {
      anonymous.cleanup()
    }
  })

  it('events delete: refused without --yes (no terminal), then deleted; a second get is exit 4', async () => {
    const refused = await cli.run(['events', 'delete', 'me', ids.E5])
    expect(refused.code).toBe(2)
    expect((await cli.json(['events', 'get', 'me', ids.E5])).id).toBe(ids.E5)
    expect(await cli.json(['events', 'delete', 'me', ids.E5, '--yes'])).toEqual({deleted: ids.E5})
    const gone = await cli.run(['events', 'get', 'me', ids.E5])
    expect(gone.code).toBe(4)
    expect((await cli.json(['events', 'list', 'me'])).events).toHaveLength(10)
  })

  it('refused before sending: bad MAC, bad date, unsupported metric pair (one line, exit code, no request)', async () => {
    const cases: [string[], number, RegExp][] = [
      [['plan', 'sensor', 'add', 'me', 'med-fluticasone', '--mac', 'AA:BB:CC:DD:EE'], 2, /^Error: Invalid MAC address "AA:BB:CC:DD:EE"/],
      [
        ['events', 'add', 'me', '--medication-id', 'm', '--medication-type', 'rescue', '--date', '2026-02-30T08:00:00Z'],
        2,
        /^Error: --date: "2026-02-30T08:00:00Z" is not an ISO 8601 date-time/,
      ],
      [['events', 'list', 'me', '--start', 'last tuesday'], 2, /^Error: --start: "last tuesday" is not an ISO 8601 date-time/],
      [
        ['metrics', 'get', 'me', '--name', 'eventsRescue', '--period', 'weekly'],
        5,
        /^Error: Metric eventsRescue is not supported for period weekly; valid names for weekly: adherencePercent/,
      ],
    ]
    const before = (await cli.json(['events', 'list', 'me'])).events.length
    const results = await Promise.all(cases.map(([argv]) => cli.run([...argv, '--verbose'])))
    for (const [i, [argv, code, message]] of cases.entries()) {
      const r = results[i]
      expect(r.code, argv.join(' ')).toBe(code)
      expect(errorLines(r.stderr), argv.join(' ')).toEqual([expect.stringMatching(message)])
      expect(r.stderr).not.toMatch(/^> (GET|POST|PUT|PATCH|DELETE) /m) // --verbose traces every request sent: none was
    }

    expect((await cli.json(['events', 'list', 'me'])).events).toHaveLength(before)
  })

  it("a missing session is exit 3 with how to sign in; someone else's data is exit 3 (403)", async () => {
    const fresh = cliFor(sandbox)
    try {
      const r = await fresh.run(['events', 'list', 'me', '--verbose'])
      expect(r.code).toBe(3)
      expect(errorLines(r.stderr)).toEqual(['Error: No health session in profile sandbox'])
      expect(r.stderr).toContain('Try this: Sign in: opsctl users login --email <email>')
      expect(r.stderr).not.toMatch(/^> GET /m)

      const other = await fresh.run(
        [
          'users',
          'create',
          '--type',
          'caregiver',
          '--email',
          'carl@example.com',
          '--given-name',
          'Carl',
          '--family-name',
          'Go',
          '--password-stdin',
        ],
        {input: SECOND_PASSWORD},
      )
      expect(other.code, other.stderr).toBe(0)
      const forbidden = await fresh.run(['events', 'list', userId])
      expect(forbidden.code).toBe(3)
      expect(errorLines(forbidden.stderr)).toEqual([expect.stringMatching(/^Error: You may not access another user's data \[HTTP 403/)])

      // logout forgets the session: the next call needs a sign-in again
      expect((await fresh.json(['users', 'logout'])).loggedOut).toBe(true)
      expect((await fresh.run(['users', 'me'])).code).toBe(3)
    } finally {
      fresh.cleanup()
    }
  })
})
