/**
 * Support staff on a seeded sandbox: the demo caregiver inspects the demo patient without the
 * patient's password; an unrelated patient gets 403 with a hint that helps; an unknown id is 404;
 * events are checked against the plan; a trace carries no patient data.
 *
 * The sandbox is a real process; the commands run in-process (test/helpers/command.ts), each user
 * with a config folder of their own, except where the process is the point (the manifest's
 * command-not-found suggestions).
 */
import {mkdirSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import EventsAdd from '../../src/commands/events/add.js'
import EventsList from '../../src/commands/events/list.js'
import PlanShow from '../../src/commands/plan/show.js'
import UsersCreate from '../../src/commands/users/create.js'
import UsersInspect from '../../src/commands/users/inspect.js'
import UsersLogin from '../../src/commands/users/login.js'
import UsersMe from '../../src/commands/users/me.js'
import {type CommandResult, isolate, runCommand, type Runnable} from '../helpers/command.js'
import {runCli, type Sandbox, startSandbox} from './harness.js'

const PATIENT = {email: 'patient@demo-clinic.test', password: 'demo-patient-pass', givenName: 'Maria', familyName: 'Santos'}
const CAREGIVER = {email: 'caregiver@demo-clinic.test', password: 'demo-caregiver-pass'}
/** The seeded patient's symptoms (src/sandbox/health/seed.ts). */
const SYMPTOMS = ['wokenAtNight', 'cough', 'wheeze']
const errorLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('Error:'))

type Who = 'caregiver' | 'patient' | 'stranger'
let sandbox: Sandbox
let env: ReturnType<typeof isolate>
let patientId: string

beforeAll(async () => {
  env = isolate()
  sandbox = await startSandbox(['--seed'])
})
afterAll(async () => {
  await sandbox?.stop()
  env?.cleanup()
})

/** Runs a command as one of the users (their own config folder), against the sandbox. */
async function as(who: Who, Cmd: Runnable, argv: string[], options: {stdin?: string; trace?: boolean} = {}): Promise<CommandResult> {
  const dir = join(env.dir, who)
  mkdirSync(dir, {recursive: true})
  process.env.OPSCTL_CONFIG_DIR = dir
  process.env.OPSCTL_HEALTH_URL = sandbox.healthUrl
  if (options.trace) process.env.OPSCTL_TRACE_PATIENT_DATA = '1'
  try {
    return await runCommand(Cmd, argv, {stdin: options.stdin})
  } finally {
    delete process.env.OPSCTL_TRACE_PATIENT_DATA
  }
}

async function json(who: Who, Cmd: Runnable, argv: string[]): Promise<any> {
  const r = await as(who, Cmd, [...argv, '--json'])
  if (r.code !== 0) throw new Error(`${argv.join(' ')} as ${who}: exit ${r.code}: ${r.stderr}`)
  return JSON.parse(r.stdout)
}

async function signIn(who: Who, account: {email: string; password: string}): Promise<void> {
  const r = await as(who, UsersLogin, ['--email', account.email, '--password-stdin'], {stdin: account.password})
  if (r.code !== 0) throw new Error(`sign-in as ${account.email}: ${r.stderr}`)
}

describe('support: the linked caregiver inspects the patient', () => {
  it('as the seeded caregiver, users inspect <patient> shows plan, events and metrics', async () => {
    await signIn('caregiver', CAREGIVER)
    const me = await json('caregiver', UsersMe, [])
    expect(me.caregiverOf).toHaveLength(1)
    patientId = me.caregiverOf[0]

    const doc = await json('caregiver', UsersInspect, [patientId])
    expect(doc.user).toMatchObject({id: patientId, email: PATIENT.email, givenName: PATIENT.givenName})
    expect(doc.plan.medications.map((m: any) => `${m.medicationId} ${m.medicationType}`)).toEqual([
      'med-fluticasone controller',
      'med-salbutamol rescue',
    ])
    expect(doc.events).toHaveLength(10)
    expect(doc.metrics).toMatchObject({timeZone: 'Asia/Manila'})
    expect(doc.metrics.controllerDosesPrescribed).toBeGreaterThan(0) // the plan's controller: 4 doses a day

    const screen = await as('caregiver', UsersInspect, [patientId])
    expect(screen.code, screen.stderr).toBe(0)
    for (const text of ['Maria Santos', 'Plan (2 medications)', 'med-fluticasone', 'Events (the newest 10; more with --events N)', 'Period: ', 'adherence']) {
      expect(screen.stdout).toContain(text)
    }
  })

  it('plan show <patient> is the plan; "plan show me" no longer suggests a write command', async () => {
    const plan = await json('caregiver', PlanShow, [patientId])
    expect(plan.medications.map((m: any) => m.medicationId)).toEqual(['med-fluticasone', 'med-salbutamol'])
    // the built CLI, as a user types it: a command of its own, not "Did you mean plan sensor add"
    const mine = await runCli(['plan', 'show', 'me'], {env: {OPSCTL_CONFIG_DIR: join(env.dir, 'caregiver'), OPSCTL_HEALTH_URL: sandbox.healthUrl}})
    expect(mine.code, mine.stderr).toBe(0)
    expect(mine.stdout + mine.stderr).not.toMatch(/sensor add|Did you mean/)
  })

  it('as an unrelated patient it is 403 with the new hint; an unknown id is 404', async () => {
    const created = await as(
      'stranger',
      UsersCreate,
      ['--type', 'patient', '--email', 'stranger@example.com', '--given-name', 'S', '--family-name', 'T', '--password-stdin'],
      {stdin: 'stranger-pass-1'},
    )
    expect(created.code, created.stderr).toBe(0)
    const forbidden = await as('stranger', UsersInspect, [patientId])
    expect(forbidden.code).toBe(3)
    expect(errorLines(forbidden.stderr)).toEqual([expect.stringMatching(/^Error: You may not access another user's data \[HTTP 403/)])
    expect(forbidden.stderr).toContain(
      'Try this: Only that user may change their data (a linked caregiver may only read it); sign in as them: opsctl users login --email <email>',
    )
    expect(forbidden.stderr).not.toContain('Sign in again')
    expect(forbidden.stdout).toBe('')

    const unknown = await as('caregiver', UsersInspect, ['ffffffffffffffffffffffff'])
    expect(unknown.code).toBe(4)
    expect(errorLines(unknown.stderr)).toEqual([expect.stringMatching(/^Error: User ffffffffffffffffffffffff not found/)])
  })

  it("a trace of users inspect --verbose holds none of the patient's name, email or symptoms, unless asked", async () => {
    const traced = await as('caregiver', UsersInspect, [patientId, '--verbose', '--json'])
    expect(traced.code, traced.stderr).toBe(0)
    expect(traced.stderr).toMatch(/^< 200 GET .*\/events\?startDate=\S+ /m) // the trace is there, with the events page
    for (const value of [PATIENT.givenName, PATIENT.familyName, PATIENT.email, ...SYMPTOMS]) expect(traced.stderr).not.toContain(value)
    expect(traced.stderr).toContain('"givenName":"*****"')

    const shown = await as('caregiver', UsersInspect, [patientId, '--verbose', '--json'], {trace: true})
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.stderr).toContain(PATIENT.email)
    expect(shown.stderr.match(/OPSCTL_TRACE_PATIENT_DATA=1: this trace shows patient data/g)).toHaveLength(1)
  })
})

describe('events add: checked against the plan', () => {
  const on = ['--date', '2021-01-01T08:00:00Z']
  const thatDay = ['--start', '2021-01-01T00:00:00Z', '--end', '2021-01-01T23:59:59Z']

  it('an unknown medication is exit 2 and nothing is stored; with --no-plan-check it is stored', async () => {
    await signIn('patient', PATIENT)
    const add = ['me', ...on, '--medication-id', 'med-nope', '--medication-type', 'rescue']
    const refused = await as('patient', EventsAdd, add)
    expect(refused.code).toBe(2)
    expect(errorLines(refused.stderr)).toEqual([
      expect.stringMatching(/^Error: Medication med-nope is not on the plan of user \w+: the plan has med-fluticasone \(controller\), med-salbutamol \(rescue\)/),
    ])
    const wrongType = await as('patient', EventsAdd, ['me', ...on, '--medication-id', 'med-fluticasone', '--medication-type', 'rescue'])
    expect(wrongType.code).toBe(2)
    expect(errorLines(wrongType.stderr)).toEqual([expect.stringContaining('med-fluticasone is a controller medication')])
    expect((await json('patient', EventsList, ['me', ...thatDay])).events).toEqual([])

    const stored = await json('patient', EventsAdd, [...add, '--no-plan-check'])
    expect(stored.medicationId).toBe('med-nope')
    const listed = (await json('patient', EventsList, ['me', ...thatDay])).events
    expect(listed.map((e: any) => e.id)).toEqual([stored.id])
  })
})
