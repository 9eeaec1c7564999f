/**
 * A support person's questions with the seeded caregiver and patient: finding the patient by email,
 * `users me` listing the linked patient at 80 columns, `users inspect --since 7d` showing exactly
 * that week, and the access log of reads of another user's data (a line per read, none for one's
 * own; a reason asked at a production profile's terminal, required without one, exit 2 and nothing
 * sent or read). The sandbox is a real process, and so are the runs at a terminal (a
 * pseudo-terminal: the built CLI, `npm run build` first); the other commands run in-process.
 */
import {existsSync, mkdirSync, readFileSync, rmSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import Api from '../../src/commands/api.js'
import AuditAccess from '../../src/commands/audit/access.js'
import EventsList from '../../src/commands/events/list.js'
import MetricsGet from '../../src/commands/metrics/get.js'
import PlanShow from '../../src/commands/plan/show.js'
import ProfileAdd from '../../src/commands/profile/add.js'
import UsersCreate from '../../src/commands/users/create.js'
import UsersGet from '../../src/commands/users/get.js'
import UsersInspect from '../../src/commands/users/inspect.js'
import UsersLogin from '../../src/commands/users/login.js'
import UsersMe from '../../src/commands/users/me.js'
import {type CommandResult, isolate, runCommand, type Runnable} from '../helpers/command.js'
import {runInTerminal, type Sandbox, startSandbox} from './harness.js'

const PATIENT = {email: 'patient@demo-clinic.test', password: 'demo-patient-pass'}
const CAREGIVER = {email: 'caregiver@demo-clinic.test', password: 'demo-caregiver-pass'}
const DAY_MS = 86_400_000

/** Each person has a config folder of their own; `prod` is the caregiver on a production profile. */
type Who = 'caregiver' | 'other' | 'patient' | 'prod'
let sandbox: Sandbox
let env: ReturnType<typeof isolate>
let patientId: string
let caregiverId: string

const dirOf = (who: Who) => join(env.dir, who)
/** What points the built CLI at the sandbox as `who`. */
const envOf = (who: Who): Record<string, string> => ({
  OPSCTL_CONFIG_DIR: dirOf(who),
  ...(who === 'prod' ? {} : {OPSCTL_HEALTH_URL: sandbox.healthUrl, OPSCTL_CHECKOUT_URL: sandbox.checkoutUrl}),
})

async function as(who: Who, Cmd: Runnable, argv: string[], stdin?: string): Promise<CommandResult> {
  mkdirSync(dirOf(who), {recursive: true})
  return runCommand(Cmd, argv, {env: {OPSCTL_HEALTH_URL: undefined, OPSCTL_CHECKOUT_URL: undefined, ...envOf(who)}, stdin})
}

async function json(who: Who, Cmd: Runnable, argv: string[]): Promise<any> {
  const r = await as(who, Cmd, [...argv, '--json'])
  if (r.code !== 0) throw new Error(`${argv.join(' ')} as ${who}: exit ${r.code}: ${r.stderr}`)
  return JSON.parse(r.stdout)
}

async function signIn(who: Who, account: {email: string; password: string}): Promise<void> {
  const r = await as(who, UsersLogin, ['--email', account.email, '--password-stdin'], account.password)
  if (r.code !== 0) throw new Error(`sign-in as ${account.email}: ${r.stderr}`)
}

/** The access log of `who`'s config folder, line by line ([] when there is none). */
function accessLines(who: Who): any[] {
  const file = join(dirOf(who), 'access.jsonl')
  if (!existsSync(file)) return []
  return readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l))
}

// Run in-process, a command is known by its class name; its id is what the access log names (`users get`).
for (const [Cmd, id] of [
  [Api, 'api'],
  [AuditAccess, 'audit:access'],
  [EventsList, 'events:list'],
  [MetricsGet, 'metrics:get'],
  [PlanShow, 'plan:show'],
  [UsersGet, 'users:get'],
  [UsersInspect, 'users:inspect'],
] as const)
  Cmd.id = id

beforeAll(async () => {
  env = isolate()
  sandbox = await startSandbox(['--seed'])
  await signIn('caregiver', CAREGIVER)
  const me = await json('caregiver', UsersMe, [])
  caregiverId = me.id
  patientId = me.caregiverOf[0]
})
afterAll(async () => {
  await sandbox?.stop()
  env?.cleanup()
})

describe('finding the patient', () => {
  it('users me lists the linked patient (name, email, id) in its table, whole at 80 columns, and under --json', async () => {
    const me = await json('caregiver', UsersMe, [])
    expect(me.linkedPatients).toEqual([{name: 'Maria Santos', email: PATIENT.email, id: patientId}])

    const screen = await runInTerminal(['users', 'me'], [], {cols: 80, env: envOf('caregiver')})
    expect(screen.code, screen.stdout).toBe(0)
    const lines = screen.stdout.split('\n')
    expect(lines).toContain('Linked patients (1)')
    expect(lines.find((l) => l.includes(patientId))).toMatch(new RegExp(`^Maria Santos +${PATIENT.email} +${patientId}$`))
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80)
  })

  it('users get and users inspect take the email of a linked patient', async () => {
    expect((await json('caregiver', UsersGet, [PATIENT.email])).id).toBe(patientId)
    expect((await json('caregiver', UsersGet, [PATIENT.email.toUpperCase()])).id).toBe(patientId)
    expect((await json('caregiver', UsersInspect, [PATIENT.email, '--events', '0'])).user.id).toBe(patientId)
    expect((await json('caregiver', UsersGet, [CAREGIVER.email])).id).toBe(caregiverId)
  })

  it('a miss says so with the email as typed and who was searched, exit 4; an email the caregiver may not read is a miss too', async () => {
    const created = await as('other', UsersCreate, ['--type', 'patient', '--email', 'other@example.com', '--given-name', 'O', '--family-name', 'P', '--password-stdin'], 'other-pass-1')
    expect(created.code, created.stderr).toBe(0)
    const searched = `searched yourself and your 1 linked patient(s): ${PATIENT.email}`
    for (const email of ['nobody@demo-clinic.test', 'other@example.com']) {
      const miss = await as('caregiver', UsersGet, [email])
      expect(miss.code).toBe(4)
      expect(miss.stdout).toBe('')
      expect(miss.stderr.split('\n')[0]).toBe(`Error: No user with email ${email} among the users ${CAREGIVER.email} may read: ${searched}`)
      expect(miss.stderr).toContain('Try this: See the users you may read: opsctl users me')
    }

    const inspected = await as('caregiver', UsersInspect, ['other@example.com'])
    expect(inspected.code).toBe(4)
  })
})

describe('users inspect --since', () => {
  it("--since 7d shows exactly the week's events and the metrics counted from them", async () => {
    const doc = await json('caregiver', UsersInspect, [patientId, '--since', '7d', '--events', '50'])
    const start = Date.parse(doc.metrics.startDate)
    const end = Date.parse(doc.metrics.endDate)
    // the sandbox runs on this machine's clock: the period is the last 7 days, to the service's now
    expect(Math.abs(end - start - 7 * DAY_MS)).toBeLessThan(60_000)

    const all = (await json('caregiver', EventsList, [patientId, '--all'])).events
    const inWeek = all.filter((e: any) => Date.parse(e.date) >= start && Date.parse(e.date) <= end)
    expect(all.length).toBeGreaterThan(inWeek.length) // six weeks are seeded: the period matters
    expect(inWeek.length).toBeGreaterThan(0)
    expect(doc.events.map((e: any) => e.id)).toEqual(inWeek.map((e: any) => e.id))

    const rescue = inWeek.filter((e: any) => e.medicationType === 'rescue')
    const controllerDoses = inWeek.filter((e: any) => e.medicationType === 'controller').reduce((sum: number, e: any) => sum + e.doses, 0)
    expect(doc.metrics).toMatchObject({
      rescueEvents: rescue.length,
      rescueNightEvents: rescue.filter((e: any) => e.nightEvent).length,
      controllerDosesTaken: controllerDoses,
    })

    const screen = await as('caregiver', UsersInspect, [patientId, '--since', '7d', '--events', '50'])
    expect(screen.code, screen.stderr).toBe(0)
    expect(screen.stdout).toContain(`Events (${inWeek.length}, newest first)`)
    // night events are marked
    const nights = inWeek.filter((e: any) => e.nightEvent).length
    expect(nights).toBeGreaterThan(0)
    // each row starts with the event's id (events get takes it)
    const ids = new Set(inWeek.filter((e: any) => e.nightEvent).map((e: any) => e.id))
    const marked = screen.stdout.split('\n').filter((l) => /^[\da-f]{24}\t\d{4}-.*\tnight\t/.test(l))
    expect(marked.map((l) => l.split('\t')[0]).sort(), screen.stdout).toEqual([...ids].sort())
  })
})

describe('the access log', () => {
  it('one line per read of the patient (the list users me shows too), none for the caregiver reading themself; audit access lists them', async () => {
    rmSync(join(dirOf('caregiver'), 'access.jsonl'), {force: true})
    const reads: [Runnable, string[], string][] = [
      [UsersGet, [PATIENT.email], 'users get'],
      [UsersInspect, [patientId, '--events', '1', '--reason', 'ticket 12: missed doses'], 'users inspect'],
      [EventsList, [patientId], 'events list'],
      [MetricsGet, [patientId, '--name', 'eventsRescue'], 'metrics get'],
      [PlanShow, [patientId], 'plan show'],
      [Api, ['health', 'GET', `/api/users/${patientId}/events`], 'api health GET /api/users/{userId}/events'],
      // the linked patients' names and emails are the patient's data too
      [UsersMe, [], 'users me'],
    ]
    for (const [Cmd, argv] of reads) expect((await as('caregiver', Cmd, argv)).code).toBe(0)
    for (const [Cmd, argv] of [
      [UsersInspect, ['me']],
      [UsersGet, [caregiverId]],
      [UsersGet, [CAREGIVER.email]],
      [PlanShow, ['me']],
      [Api, ['health', 'GET', '/api/users/me']],
    ] as [Runnable, string[]][]) {
      expect((await as('caregiver', Cmd, argv)).code).toBe(0)
    }

    const lines = accessLines('caregiver')
    expect(lines.map((l) => l.command)).toEqual(reads.map((read) => read[2]))
    for (const line of lines) {
      // who read whom, when, how and why: never what was read
      expect(Object.keys(line).filter((k) => k !== 'reason')).toEqual(['time', 'profile', 'env', 'signedInUser', 'user', 'command'])
      expect(line).toMatchObject({profile: 'sandbox', env: 'sandbox', signedInUser: caregiverId, user: patientId})
    }

    expect(lines[1].reason).toBe('ticket 12: missed doses')
    expect(lines.filter((l) => 'reason' in l)).toHaveLength(1) // a sandbox profile records without asking
    expect(statSync(join(dirOf('caregiver'), 'access.jsonl')).mode & 0o777).toBe(0o600)
    expect(readFileSync(join(dirOf('caregiver'), 'access.jsonl'), 'utf8')).not.toMatch(/Maria|Santos|patient@|wheeze|med-/)

    const listed = await json('caregiver', AuditAccess, ['--user', patientId, '--since', '1h'])
    expect(listed.entries).toEqual(lines)
    expect((await json('caregiver', AuditAccess, ['--user', caregiverId])).entries).toEqual([])
    const table = await as('caregiver', AuditAccess, [])
    expect(table.stdout).toContain('ticket 12: missed doses')
  })
})

describe('a production profile: a reason for every read of someone else', () => {
  beforeAll(async () => {
    const added = await as(
      'prod',
      ProfileAdd,
      ['live', '--env', 'production', '--health-url', sandbox.healthUrl, '--checkout-url', sandbox.checkoutUrl, '--public-key', 'pk-live', '--secret-key-stdin', '--use'],
      'sk-live-not-a-real-key',
    )
    expect(added.code, added.stderr).toBe(0)
    await signIn('prod', CAREGIVER)
  })

  it('without a terminal and without --reason: exit 2, nothing sent, nothing read, nothing logged', async () => {
    for (const argv of [[patientId], [PATIENT.email]]) {
      const refused = await as('prod', UsersInspect, [...argv, '--verbose'])
      expect(refused.code).toBe(2)
      expect(refused.stdout).toBe('')
      expect(refused.stderr).not.toMatch(/^> /m) // the trace of a request: none was sent
      expect(refused.stderr.split('\n')[0]).toBe("Error: Reading another user's health data with production profile live needs a reason for the access log; nothing was sent")
      // the command as typed, so that a copy reads the same way
      expect(refused.stderr).toContain(`Try this: Say why (kept in the access log): opsctl users inspect ${argv[0]} --verbose --reason`)
    }

    const raw = await as('prod', Api, ['health', 'GET', `/api/users/${patientId}/metrics`, '--param', 'name=eventsRescue', '--verbose'])
    expect(raw.code).toBe(2)
    expect(raw.stderr).not.toMatch(/^> /m)
    expect(accessLines('prod')).toEqual([])

    // one's own data needs no reason
    expect((await as('prod', UsersInspect, ['me', '--events', '0'])).code).toBe(0)
    const given = await as('prod', PlanShow, [patientId, '--reason', 'ticket 13'])
    expect(given.code, given.stderr).toBe(0)
    expect(accessLines('prod')).toEqual([expect.objectContaining({profile: 'live', env: 'production', user: patientId, command: 'plan show', reason: 'ticket 13'})])
  })

  it('at a terminal the reason is asked, and written with the read', async () => {
    const screen = await runInTerminal(
      ['users', 'inspect', patientId, '--events', '0'],
      [{when: 'Why read the health data of this user? (kept in the access log)', send: 'ticket 14: night cough\r'}],
      {env: envOf('prod')},
    )
    expect(screen.code, screen.stdout).toBe(0)
    expect(screen.stdout).toContain('Plan (2 medications)')
    expect(accessLines('prod').at(-1)).toMatchObject({command: 'users inspect', user: patientId, reason: 'ticket 14: night cough', signedInUser: caregiverId})
  })
})
