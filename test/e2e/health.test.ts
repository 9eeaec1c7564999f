/**
 * The health service end to end: the CLI's commands, in this process (test/helpers/command.ts),
 * against the real sandbox on a free loopback port (test/helpers/sandbox.ts). The sandbox clock is
 * fixed at the start so dates and metrics are known; the metric values are the hand-computed ones
 * of test/unit/health-metrics.test.ts, through HTTP.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import EventsAdd from '../../src/commands/events/add.js'
import EventsDelete from '../../src/commands/events/delete.js'
import EventsGet from '../../src/commands/events/get.js'
import EventsList from '../../src/commands/events/list.js'
import EventsUpdate from '../../src/commands/events/update.js'
import GroupsConfig from '../../src/commands/groups/config.js'
import MetricsGet from '../../src/commands/metrics/get.js'
import PlanMedicationAdd from '../../src/commands/plan/medication/add.js'
import PlanMedicationDelete from '../../src/commands/plan/medication/delete.js'
import PlanMedicationUpdate from '../../src/commands/plan/medication/update.js'
import PlanSensorAdd from '../../src/commands/plan/sensor/add.js'
import PlanSensorDelete from '../../src/commands/plan/sensor/delete.js'
import UsersCreate from '../../src/commands/users/create.js'
import UsersGet from '../../src/commands/users/get.js'
import UsersLogin from '../../src/commands/users/login.js'
import UsersLogout from '../../src/commands/users/logout.js'
import UsersMe from '../../src/commands/users/me.js'
import {runJson as json, runCommand as run, type Runnable} from '../helpers/command.js'
import {type InProcessSandbox, inProcessSandbox} from '../helpers/sandbox.js'

const PASSWORD = 'e2e-Pass-9f3k'
const SECOND_PASSWORD = 'e2e-Other-2j7q'

let sandbox: InProcessSandbox
let user: ReturnType<InProcessSandbox['user']>
let userId: string
/** event ids by label */
const ids: Record<string, string> = {}

/** Only the "Error:" line and its "Try this" hints: one line of error. */
function errorLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l.trim() && !l.startsWith('  Try this:'))
}

beforeAll(async () => {
  sandbox = await inProcessSandbox({clock: '2026-03-05T04:00:00Z'})
  user = sandbox.user()
})

afterAll(async () => {
  user?.cleanup()
  await sandbox?.close()
})

describe('health service through the CLI and the sandbox', () => {
  it('users create: stores the session in the profile; the password is never shown', async () => {
    const r = await run(
      UsersCreate,
      ['--type', 'patient', '--email', 'eve@example.com', '--given-name', 'Eve', '--family-name', 'Reyes'].concat([
        '--time-zone',
        'Asia/Manila',
        '--language',
        'en-PH',
        '--password-stdin',
        '--json',
      ]),
      {stdin: PASSWORD + '\n'},
    )
    expect(r.code, r.stderr).toBe(0)
    const created = JSON.parse(r.stdout)
    expect(created).toMatchObject({email: 'eve@example.com', role: 'patient', givenName: 'Eve', timeZone: 'Asia/Manila', language: 'en-PH'})
    expect(created.id).toMatch(/^[\da-f]{24}$/)
    userId = created.id
    const profile = JSON.parse(readFileSync(join(user.dir, 'profiles.json'), 'utf8')).profiles.sandbox
    expect(profile.health.userId).toBe(userId)
    expect(profile.health.session).toMatch(/^[\w-]{20,}$/)
    expect(r.stdout + r.stderr).not.toContain(PASSWORD)
    expect(r.stdout + r.stderr).not.toContain(profile.health.session)
  })

  it('users me / users get me / users login; a wrong password is exit 3', async () => {
    expect((await json(UsersMe, [])).id).toBe(userId)
    expect((await json(UsersGet, ['me'])).email).toBe('eve@example.com')
    expect((await json(UsersGet, [userId])).id).toBe(userId)
    const wrong = await run(UsersLogin, ['--email', 'eve@example.com', '--password-stdin'], {stdin: 'not-it'})
    expect(wrong.code).toBe(3)
    expect(errorLines(wrong.stderr)).toEqual([
      expect.stringMatching(/^Error: Wrong email or password \[HTTP 401, code INVALID_CREDENTIALS, request id /),
    ])
    const ok = await run(UsersLogin, ['--email', 'EVE@example.com', '--password-stdin', '--json'], {stdin: PASSWORD})
    expect(ok.code, ok.stderr).toBe(0)
    expect(JSON.parse(ok.stdout).id).toBe(userId)
  })

  it('--language goes out as accept-language and --verbose shows content-language', async () => {
    const r = await run(UsersMe, ['--language', 'fil-PH', '--verbose'])
    expect(r.code).toBe(0)
    expect(r.stderr).toContain('accept-language: fil-PH')
    expect(r.stderr).toContain('content-language: fil-PH')
    expect(r.stderr).toContain('cookie: connect.sid=[REDACTED]')
  })

  it('plan medication add (the controller the metrics use)', async () => {
    const r = await json(PlanMedicationAdd, ['me', '--medication-id', 'med-fluticasone', '--usage', '08:00=2', '--usage', '20:00=2'])
    expect(r.added).toBe('med-fluticasone')
    const me = await json(UsersMe, [])
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
    const viaData = await run(EventsAdd, ['me', '--data', '-', '--json'], {
      stdin: JSON.stringify({
        date: '2026-03-04T08:00:00+08:00',
        medicationId: 'med-fluticasone',
        medicationType: 'controller',
        source: 'sensor',
        doses: 3,
      }),
    })
    expect(viaData.code, viaData.stderr).toBe(0)
    ids.C4 = JSON.parse(viaData.stdout).id

    // One command at a time: an in-process run owns stdout, stderr and the exit code while it runs.
    const byLabel: Record<string, any> = {}
    for (const [label, argv] of adds) {
      byLabel[label] = await json(EventsAdd, ['me', ...argv])
      ids[label] = byLabel[label].id
    }

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
      const r = await json(EventsList, ['me', ...flags])
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
    for (const [flags, expected] of cases) expect(await list(...flags), flags.join(' ')).toEqual(expected)
  })

  it('events update, then events get shows the change', async () => {
    const r = await run(EventsUpdate, ['me', ids.E0, '--doses', '2', '--symptom', 'chestTightness', '--address', 'Pasig'])
    expect(r.code, r.stderr).toBe(0)
    const e = await json(EventsGet, ['me', ids.E0])
    expect(e).toMatchObject({id: ids.E0, doses: 2, symptoms: ['chestTightness'], address: 'Pasig', date: '2026-02-20T02:00:00.000Z'})
    expect(e.updatedDate >= e.createdDate).toBe(true)
  })

  const range = ['--start', '2026-03-02T00:00:00+08:00', '--end', '2026-03-04T23:59:59+08:00']

  it('metrics get daily: computed from the stored events in the user time zone', async () => {
    const r = await json(MetricsGet, [
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
    const weekly = await json(MetricsGet, ['me', '--name', 'adherencePercent', '--period', 'weekly', ...range])
    expect(weekly.periods.weekly).toEqual([{date: '2026-03-02', values: {adherencePercent: 75}}])
    const monthly = await json(MetricsGet, [
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
    const r = await json(MetricsGet, ['me', '--name', 'actAdult,actChild', '--period', 'series'])
    expect(r.startDate.slice(0, 10)).toBe('2026-02-03')
    expect(r.periods.series).toEqual([
      {date: '2026-03-02T01:00:00.000Z', values: {actAdult: 18, actChild: null}},
      {date: '2026-03-03T01:00:00.000Z', values: {actAdult: null, actChild: 12}},
    ])
    const chart = await run(MetricsGet, ['me', '--name', 'eventsRescue', ...range, '--chart'])
    expect(chart.code).toBe(0)
    expect(chart.stdout).toContain('eventsRescue (daily)  2026-03-02 .. 2026-03-04  min 1  max 3')
  })

  it('plan medication add/update, plan sensor add/delete, plan medication delete', async () => {
    await json(PlanMedicationAdd, [
      'me',
      '--medication-id',
      'med-budesonide',
      '--usage',
      '09:00=1',
      '--sensor',
      'aa:bb:cc:dd:ee:01=dpi-sensor',
    ])
    await json(PlanMedicationUpdate, ['me', 'med-budesonide', '--usage', '07:30=2', '--usage', '19:30=2'])
    await json(PlanSensorAdd, ['me', 'med-budesonide', '--mac', 'AA-BB-CC-DD-EE-02', '--model', 'dpi-sensor', '--battery-level', '64'])
    let med = (await json(UsersMe, [])).plan.medications.find((m: any) => m.medicationId === 'med-budesonide')
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
    const taken = await run(PlanSensorAdd, ['me', 'med-fluticasone', '--mac', 'AA:BB:CC:DD:EE:01'])
    expect(taken.code).toBe(5)
    expect(errorLines(taken.stderr)).toEqual([
      expect.stringMatching(/^Error: Sensor AA:BB:CC:DD:EE:01 is already attached to another medication \(mac: already attached/),
    ])

    await json(PlanSensorDelete, ['me', 'med-budesonide', 'aa:bb:cc:dd:ee:01', '--yes'])
    med = (await json(UsersMe, [])).plan.medications.find((m: any) => m.medicationId === 'med-budesonide')
    expect(med.sensors.map((s: any) => s.mac)).toEqual(['AA:BB:CC:DD:EE:02'])
    const del = await json(PlanMedicationDelete, ['me', 'med-budesonide', '--yes'])
    expect(del).toEqual({deleted: 'med-budesonide'})
    expect((await json(UsersMe, [])).plan.medications.map((m: any) => m.medicationId)).toEqual(['med-fluticasone'])
    const again = await run(PlanMedicationDelete, ['me', 'med-budesonide', '--yes'])
    expect(again.code).toBe(4)
  })

  it('groups config by name and by id, without a session', async () => {
    const byName = await json(GroupsConfig, ['demo-clinic'])
    expect(byName).toMatchObject({name: 'demo-clinic', timeZone: 'Asia/Manila'})
    expect(byName.medications.map((m: any) => m.id)).toContain('med-fluticasone')
    const anonymous = sandbox.user()
    try {
      expect((await json(GroupsConfig, [byName.id])).name).toBe('demo-clinic')
      expect((await run(GroupsConfig, ['no-such-group'])).code).toBe(4)
    } finally {
      anonymous.cleanup()
    }
  })

  it('events delete: refused without --yes (no terminal), then deleted; a second get is exit 4', async () => {
    const refused = await run(EventsDelete, ['me', ids.E5])
    expect(refused.code).toBe(2)
    expect((await json(EventsGet, ['me', ids.E5])).id).toBe(ids.E5)
    expect(await json(EventsDelete, ['me', ids.E5, '--yes'])).toEqual({deleted: ids.E5})
    const gone = await run(EventsGet, ['me', ids.E5])
    expect(gone.code).toBe(4)
    expect((await json(EventsList, ['me'])).events).toHaveLength(10)
  })

  it('refused before sending: bad MAC, bad date, unsupported metric pair (one line, exit code, no request)', async () => {
    const cases: [Runnable, string[], number, RegExp][] = [
      [PlanSensorAdd, ['me', 'med-fluticasone', '--mac', 'AA:BB:CC:DD:EE'], 2, /^Error: Invalid MAC address "AA:BB:CC:DD:EE"/],
      [
        EventsAdd,
        ['me', '--medication-id', 'm', '--medication-type', 'rescue', '--date', '2026-02-30T08:00:00Z'],
        2,
        /^Error: --date: "2026-02-30T08:00:00Z" is not a time$/,
      ],
      [EventsList, ['me', '--start', 'last tuesday'], 2, /^Error: --start: "last tuesday" is not a time$/],
      [
        MetricsGet,
        ['me', '--name', 'eventsRescue', '--period', 'weekly'],
        5,
        /^Error: Metric eventsRescue is a daily metric, not weekly$/m,
      ],
    ]
    const before = (await json(EventsList, ['me'])).events.length
    for (const [Cmd, argv, code, message] of cases) {
      const r = await run(Cmd, [...argv, '--verbose'])
      expect(r.code, argv.join(' ')).toBe(code)
      expect(errorLines(r.stderr), argv.join(' ')).toEqual([expect.stringMatching(message)])
      expect(r.stderr).not.toMatch(/^> (GET|POST|PUT|PATCH|DELETE) /m) // --verbose traces every request sent: none was
    }

    expect((await json(EventsList, ['me'])).events).toHaveLength(before)
  })

  it('an email taken twice: the server repeats it, and the trace, the Error line and the --json error all mask it', async () => {
    const fresh = sandbox.user()
    try {
      const email = 'Patient.Twice@demo-clinic.test'
      const argv = ['--type', 'patient', '--email', email, '--given-name', 'Marisol', '--family-name', 'Dacanay', '--password-stdin']
      expect((await run(UsersCreate, argv, {stdin: SECOND_PASSWORD})).code).toBe(0)
      const again = await run(UsersCreate, [...argv, '--verbose'], {stdin: SECOND_PASSWORD})
      expect(again.code).toBe(5)
      // The server's words stay readable; the address is shown as its shape.
      expect(errorLines(again.stderr).at(-1)).toMatch(/^Error: An account with email \*+\.\*+@\*+-\*+\.\*+ already exists/)
      expect(again.stderr).toMatch(/^< 400 POST /m)
      const asJson = await run(UsersCreate, [...argv, '--json'], {stdin: SECOND_PASSWORD})
      expect(asJson.code).toBe(5)
      const {error} = JSON.parse(asJson.stderr)
      expect(error.serverMessage).toMatch(/^An account with email \S+ already exists$/)
      for (const out of [again.stdout + again.stderr, asJson.stdout + asJson.stderr]) {
        expect(out.toLowerCase()).not.toContain(email.toLowerCase())
        expect(out).not.toMatch(/Marisol|Dacanay/)
      }

      // OPSCTL_TRACE_PATIENT_DATA=1 shows it, as it shows the rest of the trace.
      const shown = await run(UsersCreate, argv, {env: {OPSCTL_TRACE_PATIENT_DATA: '1'}, stdin: SECOND_PASSWORD})
      expect(shown.stderr).toContain(`An account with email ${email.toLowerCase()} already exists`)
    } finally {
      fresh.cleanup()
    }
  })

  it("a missing session is exit 3 with how to sign in; someone else's data is exit 3 (403)", async () => {
    const fresh = sandbox.user()
    try {
      const r = await run(EventsList, ['me', '--verbose'])
      expect(r.code).toBe(3)
      expect(errorLines(r.stderr)).toEqual(['Error: No health session in profile sandbox'])
      expect(r.stderr).toContain('Try this: Sign in: opsctl users login --email <email>')
      expect(r.stderr).not.toMatch(/^> GET /m)

      const other = await run(
        UsersCreate,
        ['--type', 'caregiver', '--email', 'carl@example.com', '--given-name', 'Carl', '--family-name', 'Go', '--password-stdin'],
        {stdin: SECOND_PASSWORD},
      )
      expect(other.code, other.stderr).toBe(0)
      const forbidden = await run(EventsList, [userId])
      expect(forbidden.code).toBe(3)
      expect(errorLines(forbidden.stderr)).toEqual([expect.stringMatching(/^Error: You may not access another user's data \[HTTP 403/)])

      // logout forgets the session: the next call needs a sign-in again
      expect((await json(UsersLogout, [])).loggedOut).toBe(true)
      expect((await run(UsersMe, [])).code).toBe(3)
    } finally {
      fresh.cleanup()
    }
  })
})
