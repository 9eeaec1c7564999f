/**
 * The README's command reference is generated (`npm run readme`, oclif's own generator over the
 * built commands) and must not go stale: regenerated into a copy of README.md, nothing changes.
 * Needs `npm run build` first (npm test does it).
 */
import {copyFileSync, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'

import {ROOT, runCli} from '../e2e/harness.js'

const dir = mkdtempSync(join(tmpdir(), 'opsctl-readme-'))

afterAll(() => {
  rmSync(dir, {force: true, recursive: true})
})

describe('README command reference', () => {
  it('names every command, and is what `npm run readme` generates today', async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    const copy = join(dir, 'README.md')
    copyFileSync(join(ROOT, 'README.md'), copy)

    const r = await runCli(['run', '--silent', 'readme', '--', '--readme-path', copy], {bin: 'npm'})

    expect(r.code, r.stderr).toBe(0)
    const reference = readme.slice(readme.indexOf('<!-- commands -->'), readme.indexOf('<!-- commandsstop -->'))
    for (const id of ['checkout void', 'events list', 'plan sensor add', 'sandbox clock', 'webhook listen']) {
      expect(reference).toContain(`## \`opsctl ${id}`)
    }

    // Compared as a whole: a difference means the help changed and `npm run readme` was not run.
    expect(readFileSync(copy, 'utf8') === readme, 'README.md is stale: run `npm run build && npm run readme`').toBe(true)
  })
})
