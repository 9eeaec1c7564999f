import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import EventsAdd from '../../src/commands/events/add.js'
import EventsDelete from '../../src/commands/events/delete.js'
import EventsList from '../../src/commands/events/list.js'
import EventsUpdate from '../../src/commands/events/update.js'
import GroupsConfig from '../../src/commands/groups/config.js'
import MetricsGet from '../../src/commands/metrics/get.js'
import MetricsNames from '../../src/commands/metrics/names.js'
import PlanMedicationAdd from '../../src/commands/plan/medication/add.js'
import PlanSensorAdd from '../../src/commands/plan/sensor/add.js'
import PlanSensorDelete from '../../src/commands/plan/sensor/delete.js'
import UsersCreate from '../../src/commands/users/create.js'
import UsersGet from '../../src/commands/users/get.js'
import UsersLogin from '../../src/commands/users/login.js'
import UsersLogout from '../../src/commands/users/logout.js'
import UsersMe from '../../src/commands/users/me.js'
import {type CommandHarness, commandHarness, ORIGIN} from '../helpers/command.js'
import {JSON_HEADERS, replySignIn, signedIn} from '../helpers/health.js'

let h: CommandHarness
beforeEach(async () => {
  h = await commandHarness()
})
afterEach(async () => {
  await h.close()
})

const ev = (i: number) => ({
  id: `e${i}`,
  date: `2026-03-01T${String(i % 24).padStart(2, '0')}:00:00.000Z`,
  medicationType: 'rescue',
  symptoms: [],
})

describe('users', () => {
  it('login stores the session and user id from Set-Cookie; the password and session are never printed', async () => {
    replySignIn(h, 's%3Asess-123.sig')
    const r = await h.run(UsersLogin, ['--email', 'ana@example.com', '--password', 'pw-secret-1', '--verbose'])
    expect(r.code).toBe(0)
    const [call] = h.calls()
    expect(call.body).toEqual({email: 'ana@example.com', password: 'pw-secret-1'})
    expect(call.headers.cookie).toBeUndefined()
    expect(call.headers['x-ph-api-version']).toBe('3.14.0')
    expect(h.profiles().profiles.sandbox.health).toMatchObject({session: 's%3Asess-123.sig', userId: 'u-1'})
    expect(r.stdout).toContain('ana@example.com')
    expect(r.stderr).toContain('--password lands in your shell history')
    for (const text of [r.stdout, r.stderr]) {
      expect(text).not.toContain('pw-secret-1')
      expect(text).not.toContain('sess-123')
    }
  })

  it('create sends the credentials payload and stores the session; --dry-run redacts the password', async () => {
    const dry = await h.run(UsersCreate, [
      '--type',
      'caregiver',
      '--email',
      'bo@example.com',
      '--given-name',
      'Bo',
      '--family-name',
      'Lim',
      '--password',
      'pw-secret-2',
      '--time-zone',
      'Asia/Manila',
      '--dry-run',
    ])
    expect(dry.code).toBe(0)
    expect(dry.stdout).toContain('curl')
    expect(dry.stdout).not.toContain('pw-secret-2')
    expect(h.calls()).toHaveLength(0)

    h.agent
      .get(ORIGIN)
      .intercept({path: '/api/users', method: 'POST'})
      .reply(
        201,
        {id: 'u-2', email: 'bo@example.com', role: 'caregiver'},
        {headers: {...JSON_HEADERS, 'set-cookie': ['other=1; Path=/', 'connect.sid=sess-456; Path=/']}},
      )
    const r = await h.run(UsersCreate, [
      '--type',
      'caregiver',
      '--email',
      'bo@example.com',
      '--given-name',
      'Bo',
      '--family-name',
      'Lim',
      '--password',
      'pw-secret-2',
      '--time-zone',
      'Asia/Manila',
      '--language',
      'en-ph',
      '--json',
    ])
    expect(r.code).toBe(0)
    expect(h.calls()[0].body).toEqual({
      role: 'caregiver',
      email: 'bo@example.com',
      password: 'pw-secret-2',
      givenName: 'Bo',
      familyName: 'Lim',
      language: 'en-PH',
      timeZone: 'Asia/Manila',
    })
    expect(h.calls()[0].headers['accept-language']).toBe('en-PH')
    expect(JSON.parse(r.stdout)).toMatchObject({id: 'u-2'})
    expect(h.profiles().profiles.sandbox.health).toMatchObject({session: 'sess-456', userId: 'u-2'})
  })

  it('a bad time zone or language is refused before sending (exit 2)', async () => {
    const base = ['--type', 'patient', '--email', 'a@example.com', '--given-name', 'A', '--family-name', 'B', '--password', 'x']
    const tz = await h.run(UsersCreate, [...base, '--time-zone', 'Mars/Olympus'])
    expect(tz.code).toBe(2)
    expect(tz.stderr).toContain('Error: Invalid request: timeZone: expected an IANA time zone such as Asia/Manila')
    const lang = await h.run(UsersCreate, [...base, '--language', 'not a tag!'])
    expect(lang.code).toBe(2)
    expect(lang.stderr.split('\n')[0]).toBe('Error: --language: "not a tag!" is not a BCP 47 language tag such as en-US')
    expect(h.calls()).toHaveLength(0)
  })

  it('without a session: exit 3, one line saying how to sign in, nothing sent', async () => {
    const r = await h.run(UsersMe, [])
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/^Error: No health session in profile sandbox\n {2}Try this: Sign in: opsctl users login --email <email>/)
    expect(h.calls()).toHaveLength(0)
  })

  it('a rejected session (401): exit 3, the server message, request id and how to sign in again', async () => {
    await signedIn(h, UsersLogin)
    h.agent
      .get(ORIGIN)
      .intercept({path: '/api/users/me', method: 'GET'})
      .reply(401, {code: 'UNAUTHORIZED', message: 'Session expired', elements: []}, {headers: JSON_HEADERS})
    const r = await h.run(UsersMe, [])
    expect(r.code).toBe(3)
    expect(r.stderr).toContain('Session expired')
    expect(r.stderr).toContain('request id req-1')
    expect(r.stderr).toContain('opsctl users login')
  })

  it('"me" resolves to the stored user id; logout forgets the session', async () => {
    await signedIn(h, UsersLogin)
    h.agent
      .get(ORIGIN)
      .intercept({path: '/api/users/u-1', method: 'GET'})
      .reply(200, {id: 'u-1', email: 'ana@example.com', role: 'patient'}, {headers: JSON_HEADERS})
    const r = await h.run(UsersGet, ['me', '--json'])
    expect(r.code).toBe(0)
    expect(h.calls().map((c) => c.path)).toEqual(['/api/users/u-1'])
    expect(h.calls()[0].headers.cookie).toBe('connect.sid=sess-123')
    const out = await h.run(UsersLogout, [])
    expect(out.code).toBe(0)
    expect(h.profiles().profiles.sandbox.health.session).toBeUndefined()
    expect(h.profiles().profiles.sandbox.health.userId).toBeUndefined()
  })

  it('--columns takes any field of a user, beyond the default columns', async () => {
    await signedIn(h, UsersLogin)
    h.agent
      .get(ORIGIN)
      .intercept({path: '/api/users/u-1', method: 'GET'})
      .reply(200, {id: 'u-1', email: 'ana@example.com', role: 'caregiver', caregiverOf: ['u-7']}, {headers: JSON_HEADERS})
    const r = await h.run(UsersGet, ['me', '--columns', 'id,caregiverOf', '--output', 'csv'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.split('\n')[0]).toBe('id,caregiverOf')
    expect(r.stdout).toContain('u-1')
    expect(r.stdout).toContain('u-7')
  })

  it('"me" with a session from OPSCTL_HEALTH_SESSION asks the service who that is', async () => {
    process.env.OPSCTL_HEALTH_SESSION = 'env-session'
    const pool = h.agent.get(ORIGIN)
    pool
      .intercept({path: '/api/users/me', method: 'GET'})
      .reply(200, {id: 'u-9', email: 'x@example.com', role: 'patient'}, {headers: JSON_HEADERS})
    pool
      .intercept({path: '/api/users/u-9', method: 'GET'})
      .reply(200, {id: 'u-9', email: 'x@example.com', role: 'patient'}, {headers: JSON_HEADERS})
    const r = await h.run(UsersGet, ['me', '--json'])
    delete process.env.OPSCTL_HEALTH_SESSION
    expect(r.code).toBe(0)
    expect(h.calls().map((c) => c.path)).toEqual(['/api/users/me', '/api/users/u-9'])
    expect(h.calls()[1].headers.cookie).toBe('connect.sid=env-session')
  })
})

describe('events', () => {
  beforeEach(async () => {
    await signedIn(h, UsersLogin)
  })

  it('list maps every filter to the query (arrays as repeated keys) and renders a table', async () => {
    h.agent
      .get(ORIGIN)
      .intercept({path: (p) => p.startsWith('/api/users/u-1/events?'), method: 'GET'})
      .reply(200, {events: [{...ev(3), symptoms: ['cough']}], paging: {}}, {headers: JSON_HEADERS})
    const r = await h.run(EventsList, [
      'me',
      '--start',
      '2026-03-01',
      '--end',
      '2026-03-31T23:59:59+08:00',
      '--medication-type',
      'rescue',
      '--medication-id',
      'med-a',
      '--medication-id',
      'med-b',
      '--no-night',
      '--preemptive',
      '--source',
      'manual',
      '--symptom',
      'cough',
      '--symptom',
      'wheeze',
      '--trigger',
      'coldAir',
      '--no-address-confirmed',
      '--language',
      'fil-PH',
    ])
    expect(r.code).toBe(0)
    const url = new URL(ORIGIN + h.calls()[0].path)
    expect(Object.fromEntries([...new Set(url.searchParams.keys())].map((k) => [k, url.searchParams.getAll(k)]))).toEqual({
      startDate: ['2026-03-01T00:00:00.000Z'],
      endDate: ['2026-03-31T15:59:59.000Z'],
      medicationType: ['rescue'],
      medicationIds: ['med-a', 'med-b'],
      nightEvent: ['false'],
      preemptive: ['true'],
      source: ['manual'],
      symptoms: ['cough', 'wheeze'],
      triggers: ['coldAir'],
      addressConfirmed: ['false'],
    })
    expect(h.calls()[0].headers['accept-language']).toBe('fil-PH')
    expect(r.stdout).toMatch(/^id\tdate/)
    expect(r.stdout).toContain('e3')
    expect(r.stdout).toContain('cough')
  })

  it('--all follows paging.next and streams every event as ndjson, newest first as served', async () => {
    const pool = h.agent.get(ORIGIN)
    pool
      .intercept({path: '/api/users/u-1/events?source=sensor', method: 'GET'})
      .reply(200, {events: [ev(23), ev(22)], paging: {next: 't1'}}, {headers: JSON_HEADERS})
    pool
      .intercept({path: '/api/users/u-1/events?source=sensor&pagingToken=t1', method: 'GET'})
      .reply(200, {events: [ev(21), ev(20)], paging: {next: 't2', previous: 'p1'}}, {headers: JSON_HEADERS})
    pool
      .intercept({path: '/api/users/u-1/events?source=sensor&pagingToken=t2', method: 'GET'})
      .reply(200, {events: [ev(19)], paging: {previous: 'p2'}}, {headers: JSON_HEADERS})
    const r = await h.run(EventsList, ['me', '--source', 'sensor', '--all', '--output', 'ndjson'])
    expect(r.code).toBe(0)
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual(['e23', 'e22', 'e21', 'e20', 'e19'])
    expect(h.calls()).toHaveLength(3)
  })

  it('--limit stops after N events; without --all one page and a hint for the next', async () => {
    const pool = h.agent.get(ORIGIN)
    pool
      .intercept({path: '/api/users/u-1/events', method: 'GET'})
      .reply(200, {events: [ev(5), ev(4)], paging: {next: 't1'}}, {headers: JSON_HEADERS})
      .times(2)
    pool
      .intercept({path: '/api/users/u-1/events?pagingToken=t1', method: 'GET'})
      .reply(200, {events: [ev(3), ev(2)], paging: {next: 't2'}}, {headers: JSON_HEADERS})
    const limited = await h.run(EventsList, ['me', '--limit', '3', '--json'])
    expect(JSON.parse(limited.stdout).events.map((e: any) => e.id)).toEqual(['e5', 'e4', 'e3'])
    const one = await h.run(EventsList, ['me', '--output', 'csv'])
    expect(one.stdout.trim().split('\n')).toHaveLength(3) // header + 2
    expect(one.stderr).toContain('--paging-token t1')
  })

  it('add maps flags to the Event_2 body (date in UTC); --data is the base and flags win', async () => {
    const pool = h.agent.get(ORIGIN)
    pool
      .intercept({path: '/api/users/u-1/events', method: 'POST'})
      .reply(201, {...ev(1)}, {headers: JSON_HEADERS})
      .times(2)
    const r = await h.run(EventsAdd, [
      'me',
      '--date',
      '2026-03-02T23:30:00+08:00',
      '--medication-id',
      'med-a',
      '--medication-type',
      'rescue',
      '--source',
      'sensor',
      '--doses',
      '2',
      '--symptom',
      'cough',
      '--trigger',
      'coldAir',
      '--trigger',
      'dust',
      '--no-preemptive',
      '--address',
      'Makati',
      '--address-confirmed',
      '--no-plan-check',
    ])
    expect(r.code).toBe(0)
    expect(h.calls()[0].body).toEqual({
      date: '2026-03-02T15:30:00.000Z',
      medicationId: 'med-a',
      medicationType: 'rescue',
      source: 'sensor',
      doses: 2,
      preemptive: false,
      symptoms: ['cough'],
      triggers: ['coldAir', 'dust'],
      address: 'Makati',
      addressConfirmed: true,
    })
    await h.run(EventsAdd, [
      'me',
      '--data',
      '{"date":"2026-03-02T08:00:00Z","medicationId":"med-a","medicationType":"controller","doses":1,"note":"kept"}',
      '--doses',
      '2',
      '--no-plan-check',
    ])
    expect(h.calls()[1].body).toEqual({
      date: '2026-03-02T08:00:00.000Z',
      medicationId: 'med-a',
      medicationType: 'controller',
      doses: 2,
      note: 'kept',
    })
  })

  it('a bad date, symptom or trigger is refused with exit 2 and nothing sent', async () => {
    const bad = [
      ['me', '--date', '2026-02-30T10:00:00Z', '--medication-id', 'm', '--medication-type', 'rescue'],
      ['me', '--date', '2026-03-01T10:00', '--medication-id', 'm', '--medication-type', 'rescue'],
      ['me', '--medication-id', 'm', '--medication-type', 'rescue', '--symptom', 'sneezing'],
      ['me', '--data', '{"date":"2026-03-01T10:00:00Z","medicationId":"m","medicationType":"rescue","triggers":["pollen"]}'],
    ]
    for (const argv of bad) {
      const r = await h.run(EventsAdd, argv)
      expect(r.code, argv.join(' ')).toBe(2)
      expect(r.stderr.trim().split('\n')[0]).toMatch(/^Error: /)
    }

    expect(h.calls()).toHaveLength(0)
  })

  it('update sends only the fields given with PUT', async () => {
    h.agent.get(ORIGIN).intercept({path: '/api/users/u-1/events/e1', method: 'PUT'}).reply(204, '')
    const r = await h.run(EventsUpdate, ['me', 'e1', '--doses', '3', '--symptom', 'wheeze', '--json'])
    expect(r.code).toBe(0)
    expect(h.calls()[0].body).toEqual({doses: 3, symptoms: ['wheeze']})
    expect(JSON.parse(r.stdout)).toEqual({eventId: 'e1', updated: {doses: 3, symptoms: ['wheeze']}})
    expect((await h.run(EventsUpdate, ['me', 'e1'])).code).toBe(2)
  })

  it('delete needs --yes without a terminal; it is sent once and never retried', async () => {
    const refused = await h.run(EventsDelete, ['me', 'e1'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('--yes')
    expect(h.calls()).toHaveLength(0)
    h.agent
      .get(ORIGIN)
      .intercept({path: '/api/users/u-1/events/e1', method: 'DELETE'})
      .reply(503, {message: 'busy'}, {headers: JSON_HEADERS})
      .persist()
    const r = await h.run(EventsDelete, ['me', 'e1', '--yes'])
    expect(r.code).toBe(6)
    expect(h.calls()).toHaveLength(1)
  })
})

describe('metrics', () => {
  const result = {
    startDate: '2026-03-01T00:00:00.000Z',
    endDate: '2026-03-03T00:00:00.000Z',
    timeZone: 'Asia/Manila',
    periods: {
      daily: [
        {date: '2026-03-01', values: {eventsRescue: 1, eventsRescueNight: 0}},
        {date: '2026-03-02', values: {eventsRescue: 3, eventsRescueNight: 1}},
        {date: '2026-03-03', values: {eventsRescue: 0, eventsRescueNight: null}},
      ],
    },
  }

  it("an unsupported name/period pair: exit 5, the name's own period said first, nothing sent", async () => {
    await signedIn(h, UsersLogin)
    const r = await h.run(MetricsGet, ['me', '--name', 'eventsRescue', '--period', 'monthly'])
    expect(r.code).toBe(5)
    expect(r.stderr.split('\n')).toEqual([
      'Error: Metric eventsRescue is a daily metric, not monthly',
      '  Try this: Ask it with --period daily',
      '',
    ])
    expect(h.calls()).toHaveLength(0)
  })

  it('sends names and periods as repeated keys and renders one row per window', async () => {
    await signedIn(h, UsersLogin)
    h.agent
      .get(ORIGIN)
      .intercept({path: (p) => p.startsWith('/api/users/u-1/metrics?'), method: 'GET'})
      .reply(200, result, {headers: JSON_HEADERS})
    const r = await h.run(MetricsGet, [
      'me',
      '--name',
      'eventsRescue,eventsRescueNight',
      '--period',
      'daily',
      '--start',
      '2026-03-01',
      '--output',
      'csv',
    ])
    expect(r.code).toBe(0)
    expect(h.calls()[0].path).toBe(
      '/api/users/u-1/metrics?name=eventsRescue&name=eventsRescueNight&period=daily&startDate=2026-03-01T00%3A00%3A00.000Z',
    )
    expect(r.stdout.trim().split('\n')).toEqual([
      'period,date,eventsRescue,eventsRescueNight',
      'daily,2026-03-01,1,0',
      'daily,2026-03-02,3,1',
      'daily,2026-03-03,0,',
    ])
  })

  it('--chart draws each series with asciichart', async () => {
    await signedIn(h, UsersLogin)
    h.agent
      .get(ORIGIN)
      .intercept({path: (p) => p.startsWith('/api/users/u-1/metrics?'), method: 'GET'})
      .reply(200, result, {headers: JSON_HEADERS})
    const r = await h.run(MetricsGet, ['me', '--name', 'eventsRescue,eventsRescueNight', '--chart'])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('eventsRescue (daily)  2026-03-01 .. 2026-03-03  min 0  max 3')
    expect(r.stdout).toContain('eventsRescueNight (daily)  2026-03-01 .. 2026-03-02  min 0  max 1')
    expect(r.stdout).toMatch(/[╭╮╰╯─│┤┼]/)
  })

  it('names prints the supported table', async () => {
    const r = await h.run(MetricsNames, ['--period', 'weekly', '--json'])
    expect(JSON.parse(r.stdout)).toEqual([{period: 'weekly', name: 'adherencePercent'}])
  })
})

describe('plan and groups', () => {
  beforeEach(async () => {
    await signedIn(h, UsersLogin)
  })

  it('sensor add: a bad MAC is exit 2 with nothing sent; a lower-case one is normalised', async () => {
    const bad = await h.run(PlanSensorAdd, ['me', 'med-a', '--mac', 'AA:BB:CC:DD:EE'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('Invalid MAC address "AA:BB:CC:DD:EE"')
    expect(h.calls()).toHaveLength(0)
    h.agent.get(ORIGIN).intercept({path: '/api/users/u-1/plan/medication/med-a/sensor', method: 'POST'}).reply(201, '')
    const ok = await h.run(PlanSensorAdd, ['me', 'med-a', '--mac', 'aa-bb-cc-dd-ee-0f', '--model', 'hfa', '--battery-level', '80'])
    expect(ok.code).toBe(0)
    expect(h.calls()[0].body).toEqual({mac: 'AA:BB:CC:DD:EE:0F', model: 'hfa', batteryLevel: 80})
  })

  it('sensor delete puts the normalised MAC in the path', async () => {
    h.agent
      .get(ORIGIN)
      .intercept({path: '/api/users/u-1/plan/medication/med-a/sensor/AA%3ABB%3ACC%3ADD%3AEE%3A0F', method: 'DELETE'})
      .reply(204, '')
    const r = await h.run(PlanSensorDelete, ['me', 'med-a', 'aa:bb:cc:dd:ee:0f', '--yes'])
    expect(r.code).toBe(0)
  })

  it('medication add: usage and sensors from flags', async () => {
    h.agent.get(ORIGIN).intercept({path: '/api/users/u-1/plan/medication', method: 'POST'}).reply(201, '')
    const r = await h.run(PlanMedicationAdd, [
      'me',
      '--medication-id',
      'med-f',
      '--usage',
      '08:00=2',
      '--usage',
      '20:30',
      '--sensor',
      'aa:bb:cc:dd:ee:01=hfa',
    ])
    expect(r.code).toBe(0)
    expect(h.calls()[0].body).toEqual({
      medicationId: 'med-f',
      usageList: [
        {hour: 8, minute: 0, doses: 2},
        {hour: 20, minute: 30, doses: 1},
      ],
      sensors: [{mac: 'AA:BB:CC:DD:EE:01', model: 'hfa'}],
    })
  })

  it('groups config sends no cookie; --verbose shows content-language', async () => {
    h.agent
      .get(ORIGIN)
      .intercept({path: '/api/groups/demo-clinic/config', method: 'GET'})
      .reply(200, {id: 'g1', name: 'demo-clinic', medications: []}, {headers: JSON_HEADERS})
    const r = await h.run(GroupsConfig, ['demo-clinic', '--verbose', '--language', 'en-PH'])
    expect(r.code).toBe(0)
    expect(h.calls()[0].headers.cookie).toBeUndefined()
    expect(r.stderr).toContain('content-language: en-PH')
    expect(r.stdout).toContain('demo-clinic')
  })
})
