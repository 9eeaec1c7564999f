import {execFileSync} from 'node:child_process'
import {lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {recentEventIds, rememberEventIds} from '../../../src/profiles/recent-events.js'

let dir: string
const file = () => join(dir, 'recent-events.json')

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'opsctl-recent-events-'))
})

afterEach(() => {
  rmSync(dir, {force: true, recursive: true})
})

describe('the event ids kept for Tab', () => {
  it('puts the newest ids in front of what the profile had, private to the user', async () => {
    await rememberEventIds(dir, 'sandbox', ['evt_2', 'evt_1'])
    await rememberEventIds(dir, 'sandbox', ['evt_3', 'evt_2'])
    expect(recentEventIds(dir, 'sandbox')).toEqual(['evt_3', 'evt_2', 'evt_1'])
    expect(statSync(file()).mode & 0o777).toBe(0o600)
  })

  it('leaves the file untouched when a listing shows the ids it already starts with', async () => {
    // written by hand, so that any rewrite (which formats it otherwise) shows
    const text = '{ "sandbox": ["evt_2", "evt_1"], "other": ["evt_9"] }\n'
    writeFileSync(file(), text, {mode: 0o600})
    await rememberEventIds(dir, 'sandbox', ['evt_2'])
    await rememberEventIds(dir, 'sandbox', ['evt_2', 'evt_1'])
    expect(readFileSync(file(), 'utf8')).toBe(text)

    await rememberEventIds(dir, 'sandbox', ['evt_1'])
    expect(recentEventIds(dir, 'sandbox')).toEqual(['evt_1', 'evt_2'])
    expect(recentEventIds(dir, 'other')).toEqual(['evt_9'])
  })

  it('replaces a symbolic link in its place instead of writing through it, and leaves no temporary file', async () => {
    const target = join(dir, 'elsewhere.txt')
    writeFileSync(target, 'not yours\n')
    symlinkSync(target, file())
    await rememberEventIds(dir, 'sandbox', ['evt_1'])
    expect(readFileSync(target, 'utf8')).toBe('not yours\n')
    expect(lstatSync(file()).isSymbolicLink()).toBe(false)
    expect(recentEventIds(dir, 'sandbox')).toEqual(['evt_1'])
    expect(readdirSync(dir).sort()).toEqual(['elsewhere.txt', 'recent-events.json'])
  })

  it('creates a missing config folder private to the user', async () => {
    const nested = join(dir, 'config')
    await rememberEventIds(nested, 'sandbox', ['evt_1'])
    expect(recentEventIds(nested, 'sandbox')).toEqual(['evt_1'])
    expect(statSync(nested).mode & 0o777).toBe(0o700)
  })

  it('offers nothing, at once, when a FIFO or a huge file is in its place (Tab must never wait)', async () => {
    execFileSync('mkfifo', ['-m', '600', file()])
    expect(recentEventIds(dir, 'sandbox')).toEqual([])
    rmSync(file())
    writeFileSync(file(), JSON.stringify({sandbox: ['evt_1'], pad: 'x'.repeat(300 * 1024)}), {mode: 0o600})
    expect(recentEventIds(dir, 'sandbox')).toEqual([])
  })
})
