/**
 * One way to name a user, in every command that takes one: an id, `me`, or an email looked up among
 * the users the signed-in user may read. The same user comes back whichever form is typed, what is
 * sent is the id, and the access log holds ids, never the email typed. The seeded sandbox is a real
 * process; the commands run in-process.
 */
import {existsSync, mkdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import EventsAdd from '../../src/commands/events/add.js'
import EventsDelete from '../../src/commands/events/delete.js'
import EventsGet from '../../src/commands/events/get.js'
import EventsList from '../../src/commands/events/list.js'
import EventsUpdate from '../../src/commands/events/update.js'
import MetricsGet from '../../src/commands/metrics/get.js'
import PlanMedicationAdd from '../../src/commands/plan/medication/add.js'
import PlanMedicationDelete from '../../src/commands/plan/medication/delete.js'
import PlanMedicationUpdate from '../../src/commands/plan/medication/update.js'
import PlanShow from '../../src/commands/plan/show.js'
import UsersGet from '../../src/commands/users/get.js'
import UsersInspect from '../../src/commands/users/inspect.js'
import UsersLogin from '../../src/commands/users/login.js'
import UsersMe from '../../src/commands/users/me.js'
import {type CommandResult, isolate, runCommand, type Runnable} from '../helpers/command.js'
import {type Sandbox, startSandbox} from './harness.js'

const PATIENT = {email: 'patient@demo-clinic.test', password: 'demo-patient-pass'}
const CAREGIVER = {email: 'caregiver@demo-clinic.test', password: 'demo-caregiver-pass'}

type Who = 'caregiver' | 'patient'
let sandbox: Sandbox
let env: ReturnType<typeof isolate>
let patientId: string

const dirOf = (who: Who) => join(env.dir, who)

async function as(who: Who, Cmd: Runnable, argv: string[], stdin?: string): Promise<CommandResult> {
  mkdirSync(dirOf(who), {recursive: true})
  return runCommand(Cmd, argv, {
    env: {OPSCTL_CHECKOUT_URL: sandbox.checkoutUrl, OPSCTL_CONFIG_DIR: dirOf(who), OPSCTL_HEALTH_URL: sandbox.healthUrl},
    stdin,
  })
}

async function json(who: Who, Cmd: Runnable, argv: string[]): Promise<any> {
  const r = await as(who, Cmd, [...argv, '--json'])
  expect(r.code, `${argv.join(' ')} as ${who}: ${r.stderr}`).toBe(0)
  return JSON.parse(r.stdout)
}

beforeAll(async () => {
  env = isolate()
  sandbox = await startSandbox(['--seed'])
  for (const [who, account] of [
    ['caregiver', CAREGIVER],
    ['patient', PATIENT],
  ] as const) {
    const r = await as(who, UsersLogin, ['--email', account.email, '--password-stdin'], account.password)
    expect(r.code, r.stderr).toBe(0)
  }

  patientId = (await json('patient', UsersMe, [])).id
})
afterAll(async () => {
  await sandbox?.stop()
  env?.cleanup()
})

describe('a user named by id, me or email', () => {
  it('every read gives the same answer for the patient by email (any case) and by id; the access log holds the id', async () => {
    // one range for the three runs: `now` would move between them
    const end = new Date().toISOString()
    const start = new Date(Date.parse(end) - 14 * 86_400_000).toISOString()
    const reads: [Runnable, string[], (doc: any) => unknown][] = [
      [UsersGet, [], (doc) => doc.id],
      [UsersInspect, ['--events', '3', '--since', '7d'], (doc) => [doc.user.id, doc.events.map((e: {id: string}) => e.id)]],
      [EventsList, ['--night', '--limit', '5'], (doc) => doc.events.map((e: {id: string}) => e.id)],
      [MetricsGet, ['--name', 'eventsRescue', '--start', start, '--end', end], (doc) => doc],
      [PlanShow, [], (doc) => doc.medications ?? doc],
    ]
    for (const [Cmd, argv, key] of reads) {
      const answers = []
      for (const user of [patientId, PATIENT.email, PATIENT.email.toUpperCase()])
        answers.push(key(await json('caregiver', Cmd, [user, ...argv])))
      expect(answers[1], `${argv.join(" ")} by email`).toEqual(answers[0])
      expect(answers[2], `${argv.join(" ")} by EMAIL`).toEqual(answers[0])
    }

    const firstEvent = (await json('caregiver', EventsList, [patientId, '--limit', '1'])).events[0].id
    expect((await json('caregiver', EventsGet, [PATIENT.email, firstEvent])).id).toBe(firstEvent)

    const log = join(dirOf('caregiver'), 'access.jsonl')
    expect(existsSync(log)).toBe(true)
    const lines = readFileSync(log, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(lines).toHaveLength(reads.length * 3 + 2)
    expect(new Set(lines.map((l) => l.user))).toEqual(new Set([patientId]))
    expect(readFileSync(log, 'utf8')).not.toContain('@')
  })

  it('the patient writes their own events and plan naming themself by email, me or id', async () => {
    const plan = await json('patient', PlanShow, [PATIENT.email])
    const listed = async (user: string) => (await json('patient', EventsList, [user, '--limit', '3'])).events.map((e: {id: string}) => e.id)
    expect(await listed(PATIENT.email)).toEqual(await listed('me'))
    expect(await listed(patientId)).toEqual(await listed('me'))
    const rescue = plan.medications.find((m: {medicationId: string; type?: string}) => m.type === 'rescue') ?? plan.medications[0]
    const added = await json('patient', EventsAdd, [
      PATIENT.email,
      '--date',
      '1h',
      '--doses',
      '1',
      '--medication-id',
      rescue.medicationId,
      '--medication-type',
      'rescue',
      '--source',
      'manual',
      '--no-plan-check',
    ])
    const eventId = added.id as string
    expect((await as('patient', EventsUpdate, ['me', eventId, '--doses', '2'])).code).toBe(0)
    expect((await json('patient', EventsGet, [patientId, eventId])).doses).toBe(2)
    expect((await as('patient', EventsDelete, [PATIENT.email, eventId, '--yes'])).code).toBe(0)
    expect((await as('patient', EventsGet, [PATIENT.email, eventId])).code).toBe(4)

    const fluticasone = plan.medications.find((m: {medicationId: string}) => m.medicationId === 'med-fluticasone')
    const usage = async () =>
      (await json('patient', PlanShow, ['me'])).medications.find((m: {medicationId: string}) => m.medicationId === 'med-fluticasone')
        .usageList
    expect((await as('patient', PlanMedicationUpdate, [PATIENT.email, 'med-fluticasone', '--usage', '20:30=1'])).code).toBe(0)
    expect(await usage()).toEqual([{doses: 1, hour: 20, minute: 30}])
    expect((await as('patient', PlanMedicationDelete, [PATIENT.email, 'med-fluticasone', '--yes'])).code).toBe(0)
    expect((await as('patient', PlanMedicationAdd, [PATIENT.email, '--data', JSON.stringify(fluticasone)])).code).toBe(0)
    expect(await usage()).toEqual(fluticasone.usageList)
  })
})
