/**
 * The support person's day, as typed at an 80-column terminal against a real sandbox (real
 * processes: `sandbox start --seed`, then the built CLI): sign in as the caregiver, find the patient
 * by email, one screen of them, their night events, and the access log with the reason given.
 * What they came for (ids, dates, the reason) must be whole on screen, with nothing on it they did
 * not ask for; each mistake has its exit code.
 */
import {describe, expect, it} from 'vitest'

import {fits, onScreen} from '../helpers/screen.js'
import {type Cli, type Sandbox, sandboxForFile} from './harness.js'

let sandbox: Sandbox
let cli: Cli
let patientId: string
let caregiverId: string
const REASON = 'ticket 4512: caregiver cannot see her night events from last week'
const ID = /^[\da-f]{24}$/
/** A time as a table shows it in the patient's zone (Asia/Manila), with or without its year. */
const MANILA_TIME = /(?:\d{4}-)?\d{2}-\d{2} \d{2}:\d{2} \+08:00/

sandboxForFile(['--seed'], (started, user) => {
  sandbox = started
  cli = user
})

describe("the support person's day at 80 columns", () => {
  it('signs in as the caregiver; says who, and nothing else on stderr', async () => {
    const login = await cli.run(['users', 'login', '--email', 'caregiver@demo-clinic.test', '--password-stdin'], {input: 'demo-caregiver-pass'})
    expect(login.code, login.stderr).toBe(0)
    expect(login.stderr).toMatch(/^Signed in as caregiver@demo-clinic\.test \([\da-f]{24}\); session stored in profile sandbox\n$/)
    caregiverId = /\(([\da-f]{24})\)/.exec(login.stderr)![1]
  })

  it('users get takes the email and gives the id', async () => {
    const user = await cli.json(['users', 'get', 'patient@demo-clinic.test'])
    expect(user.id).toMatch(ID)
    patientId = user.id
  })

  it('users me lists the linked patient whole: name, email, id', async () => {
    const screen = await onScreen(['users', 'me'], cli.env)
    expect(screen.code, screen.raw).toBe(0)
    fits(screen.lines)
    expect(screen.lines).toContain(`Maria Santos  patient@demo-clinic.test  ${patientId}`)
    expect(screen.raw).not.toMatch(/warning/i)
  })

  it('users inspect by email: the events with their ids, which events get takes', async () => {
    const screen = await onScreen(['users', 'inspect', 'patient@demo-clinic.test', '--since', '7d', '--reason', REASON], cli.env)
    expect(screen.code, screen.raw).toBe(0)
    fits(screen.lines)
    expect(screen.lines[0]).toBe(`id           ${patientId}`)
    const heading = screen.lines.findIndex((l) => l.startsWith('Events ('))
    const header = screen.lines.slice(heading).find((l) => l.startsWith('id '))!
    expect(header.split(/ {2,}/)).toEqual(expect.arrayContaining(['id', 'when', 'night', 'symptoms']))
    const rows = screen.lines.slice(screen.lines.indexOf(header) + 1).filter((l) => /^[\da-f]{24} /.test(l))
    expect(rows.length).toBeGreaterThan(0)
    const {events} = await cli.json(['events', 'list', patientId, '--start', '7d', '--limit', '50'])
    const known = new Set(events.map((e: {id: string}) => e.id))
    for (const row of rows) expect(known.has(row.slice(0, 24)), row).toBe(true)
    expect(rows.find((r) => / night {2}/.test(r))).toMatch(/night {2}wokenAtNight,cough$/)
  })

  it('events list --night: ids and whole dates; what every row shares is said once; its --columns hint shows what it names', async () => {
    const screen = await onScreen(['events', 'list', patientId, '--night'], cli.env)
    expect(screen.code, screen.raw).toBe(0)
    fits(screen.lines)
    const header = screen.lines.find((l) => l.startsWith('id '))!
    const rows = screen.lines.slice(screen.lines.indexOf(header) + 1)
    expect(rows.length).toBeGreaterThan(0)
    for (const row of rows) {
      expect(row.slice(0, 24)).toMatch(ID)
      expect(row).toMatch(MANILA_TIME)
    }

    const notes = screen.lines.slice(0, screen.lines.indexOf(header)).join(' ').replaceAll(/\s+/g, ' ')
    // nightEvent and medicationId are on screen: a column, or the one value of every row
    for (const column of ['nightEvent', 'medicationId']) {
      if (!header.split(/ {2,}/).includes(column)) expect(notes).toMatch(new RegExp(`the same on every row: .*${column} = `))
    }

    const hint = /see (?:it|them) with --columns (\S+)/.exec(notes)?.[1]
    if (hint) {
      const followed = await onScreen(['events', 'list', patientId, '--night', '--columns', hint], cli.env)
      expect(followed.code, followed.raw).toBe(0)
      expect(followed.lines[0].split(/ {2,}/)).toEqual(hint.split(','))
    }
  })

  it('audit access: the reason whole, where the read went (profile and environment), in the patient’s zone', async () => {
    const screen = await onScreen(['audit', 'access', '--since', '1h'], cli.env)
    expect(screen.code, screen.raw).toBe(0)
    fits(screen.lines)
    const text = screen.lines.join('\n')
    expect(text).toMatch(/^Left out, the same on every row: profile = sandbox, env = sandbox$/m)
    const header = screen.lines.find((l) => l.startsWith('time '))!
    const start = header.indexOf('reason')
    expect(start).toBeGreaterThan(0)
    const rows = screen.lines.slice(screen.lines.indexOf(header) + 1)
    // the reason read down its column is the reason given, every word
    const inspect = rows.findIndex((l) => l.includes('users inspect'))
    const next = rows.findIndex((l, i) => i > inspect && l.slice(0, start).trim() !== '')
    const reason = rows.slice(inspect, next === -1 ? undefined : next).map((l) => l.slice(start).trim()).join(' ')
    expect(reason).toBe(REASON)
    expect(rows[inspect]).toMatch(new RegExp(`^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} \\+08:00 +${patientId} +users inspect `))
    // users me read the linked patient's name and email: a line too
    expect(rows.some((l) => new RegExp(`${patientId} +users me`).test(l))).toBe(true)
  })

  it('mistakes: an email nobody linked is exit 4; a production read without a reason is exit 2 and the hint repeats the command as typed', async () => {
    const missing = await cli.run(['users', 'inspect', 'nobody@demo-clinic.test'])
    expect(missing.code).toBe(4)
    expect(missing.stdout).toBe('')
    expect(missing.stderr).toMatch(/^Error: No user with email nobody@demo-clinic\.test among the users caregiver@demo-clinic\.test may read/)

    const env = {OPSCTL_HEALTH_URL: undefined, OPSCTL_CHECKOUT_URL: undefined}
    const added = await cli.run(
      ['profile', 'add', 'live', '--env', 'production', '--health-url', sandbox.healthUrl, '--checkout-url', sandbox.checkoutUrl, '--public-key', 'pk-live', '--secret-key-stdin'],
      {env, input: 'sk-live-not-a-real-key'},
    )
    expect(added.code, added.stderr).toBe(0)
    const refused = await cli.run(['events', 'list', patientId, '-p', 'live', '--night', '--start', '7d'], {env})
    expect(refused.code).toBe(2)
    expect(refused.stdout).toBe('')
    expect(refused.stderr).toBe(
      "Error: Reading another user's health data with production profile live needs a reason for the access log; nothing was sent\n" +
        `  Try this: Say why (kept in the access log): opsctl events list ${patientId} -p live --night --start 7d --reason "ticket 4512: missed doses"\n`,
    )
    expect(caregiverId).toMatch(ID)
  })
})
