/**
 * docs/output.md's "Listing commands" section is generated from the built commands' views
 * (`npm run docs:output`, scripts/output-listings.mjs) and must not go stale, like the README's
 * command reference. Needs `npm run build` first (npm test does it).
 */
import {spawnSync} from 'node:child_process'
import {copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'

const ROOT = resolve(import.meta.dirname, '../..')
const dir = mkdtempSync(join(tmpdir(), 'opsctl-output-doc-'))
const check = (doc: string) => spawnSync(process.execPath, ['scripts/output-listings.mjs', '--check', '--doc', doc], {cwd: ROOT, encoding: 'utf8'})

afterAll(() => {
  rmSync(dir, {force: true, recursive: true})
})

describe('docs/output.md listing commands', () => {
  it('is what `npm run docs:output` generates from the views today', () => {
    const section = readFileSync(join(ROOT, 'docs/output.md'), 'utf8')
    expect(section).toContain('| `events list` | `events` |')
    const r = check(join(ROOT, 'docs/output.md'))
    expect(r.status, r.stderr).toBe(0)
  })

  it('is stale when a listing command is missing from it', () => {
    const copy = join(dir, 'output.md')
    copyFileSync(join(ROOT, 'docs/output.md'), copy)
    writeFileSync(copy, readFileSync(copy, 'utf8').replace(/^\| `webhook list` \| `webhooks` \|.*\n/m, ''))
    const r = check(copy)
    expect(r.status).toBe(1)
    expect(r.stderr).toContain('is stale: run `npm run build && npm run docs:output`')
  })
})
