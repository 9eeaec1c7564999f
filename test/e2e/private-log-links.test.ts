/**
 * The files opsctl appends to in its config folder (`audit.jsonl`, `access.jsonl`) are never
 * opened through a symbolic link: a link in their place, dangling or to another file, is exit 2
 * with one line naming the file, the link's target is neither written nor chmod-ed nor created, and
 * the change or the read the line was for is not made. A log that cannot be written (a folder in
 * its place) is the same one line and exit 2, not "Unexpected error". In-process, against the real
 * sandbox in this process (seeded: a caregiver and the patient they look after).
 */
import {chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import UsersGet from '../../src/commands/users/get.js'
import UsersLogin from '../../src/commands/users/login.js'
import UsersMe from '../../src/commands/users/me.js'
import WebhookList from '../../src/commands/webhook/list.js'
import WebhookRegister from '../../src/commands/webhook/register.js'
import {runCommand as run} from '../helpers/command.js'
import {sandboxPerFile} from '../helpers/sandbox.js'

const file = sandboxPerFile({seed: true})
let outside: string
let patientId: string

beforeAll(async () => {
  outside = mkdtempSync(join(tmpdir(), 'opsctl-link-target-'))
  const login = await run(UsersLogin, ['--email', 'caregiver@demo-clinic.test', '--password-stdin'], {stdin: 'demo-caregiver-pass'})
  expect(login.code, login.stderr).toBe(0)
  const me = await run(UsersMe, ['--json'])
  patientId = JSON.parse(me.stdout).caregiverOf[0]
  // users me wrote an access line for the patient it lists: each case below starts without the log
  rmSync(join(file.user.dir, 'access.jsonl'), {force: true})
})
afterAll(() => rmSync(outside, {force: true, recursive: true}))

/** What each log is written by: a webhook registration (audited), a read of another user's health data (access). */
const LOGS = [
  {
    name: 'audit.jsonl',
    write: () => run(WebhookRegister, ['--name', 'CHECKOUT_SUCCESS', '--url', 'http://127.0.0.1:9/hook']),
    /** nothing was sent: the sandbox has no webhook */
    async unchanged() {
      const list = await run(WebhookList, ['--json'])
      expect(list.code, list.stderr).toBe(0)
      expect(JSON.parse(list.stdout)).toEqual({webhooks: []})
    },
    after: 'nothing was sent',
  },
  {
    name: 'access.jsonl',
    write: () => run(UsersGet, [patientId]),
    async unchanged() {},
    after: "the user's data was not read",
  },
]

describe.each(LOGS)('$name', (log) => {
  const path = () => join(file.user.dir, log.name)

  it('a link to another file: exit 2 naming the log; the other file keeps its bytes and its mode', async () => {
    const target = join(outside, `${log.name}.other`)
    writeFileSync(target, 'keep me\n', {mode: 0o644})
    chmodSync(target, 0o644)
    symlinkSync(target, path())
    try {
      const result = await log.write()
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr.trim()).toBe(`Error: Cannot write ${path()}: it is a symbolic link, and opsctl appends only to a real file; ${log.after}`)
      expect(result.stdout).toBe('')
      expect(readFileSync(target, 'utf8')).toBe('keep me\n')
      expect(statSync(target).mode & 0o777).toBe(0o644)
      await log.unchanged()
    } finally {
      rmSync(path())
    }
  })

  it('a dangling link: exit 2, and the file it points at is not created', async () => {
    const target = join(outside, `${log.name}.missing`)
    symlinkSync(target, path())
    try {
      const result = await log.write()
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toContain(`Cannot write ${path()}: it is a symbolic link`)
      expect(existsSync(target)).toBe(false)
      await log.unchanged()
    } finally {
      rmSync(path())
    }
  })

  it('a folder in its place: one line naming the log, exit 2, not "Unexpected error"', async () => {
    mkdirSync(path())
    try {
      const result = await log.write()
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr.trim()).toBe(`Error: Cannot write ${path()}: it is a folder; ${log.after}`)
      await log.unchanged()
    } finally {
      rmSync(path(), {recursive: true})
    }
  })
})
