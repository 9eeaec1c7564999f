/**
 * `sandbox start --state FILE` refuses, with exit 2, a one-line reason and the file left as it was,
 * a JSON state of an unknown version and a database written by a newer opsctl. (Importing a JSON
 * state of a known version is test/unit/sandbox-state-file.test.ts.)
 */
import {mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {SCHEMA_VERSION} from '../../src/sandbox/core/schema.js'
import {openDatabase} from '../helpers/sqlite.js'
import {runCli} from './harness.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'opsctl-state-file-'))
})
afterEach(() => rmSync(dir, {force: true, recursive: true}))

describe('sandbox start --state refuses what it cannot read (process)', () => {
  it('a JSON state of an unknown version: exit 2, the version named, the file untouched and no copy made', async () => {
    const file = join(dir, 'state.json')
    const text = JSON.stringify({version: 7, health: {users: []}})
    writeFileSync(file, text)
    const result = await runCli(['sandbox', 'start', '--port', '0', '--state', file])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`the state file ${file} is JSON that this opsctl cannot import: it is version 7, written by a newer opsctl`)
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
    expect(readFileSync(file, 'utf8')).toBe(text)
    expect(readdirSync(dir)).toEqual(['state.json'])
  })

  it('a database of a newer schema: exit 2, both versions named, the file untouched', async () => {
    const file = join(dir, 'state.db')
    const db = openDatabase(file)
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`)
    db.close()
    const before = readFileSync(file)
    const result = await runCli(['sandbox', 'start', '--port', '0', '--state', file])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`is schema version ${SCHEMA_VERSION + 1}, written by a newer opsctl; this one reads up to version ${SCHEMA_VERSION}`)
    expect(readFileSync(file).equals(before)).toBe(true)
  })
})
