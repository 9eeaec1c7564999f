/**
 * The command reference, docs/commands.md, is generated (`npm run readme`, oclif's own generator
 * over the built commands) and must not go stale: regenerated into a copy, nothing changes. The
 * README stays the journey a newcomer reads, not the reference. Needs `npm run build` first (npm
 * test does it).
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

describe('the command reference', () => {
  it('names every command, and is what `npm run readme` generates today', async () => {
    const readme = readFileSync(join(ROOT, 'docs', 'commands.md'), 'utf8')
    const copy = join(dir, 'commands.md')
    copyFileSync(join(ROOT, 'docs', 'commands.md'), copy)

    // `npm run readme` as package.json spells it, writing into the copy instead.
    const {scripts} = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {scripts: Record<string, string>}
    expect(scripts.readme).toContain('--readme-path docs/commands.md')
    const script = scripts.readme.replace('--readme-path docs/commands.md', `--readme-path '${copy}'`)
    const r = await runCli(['-c', script], {bin: 'sh', env: {PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH}`}})

    expect(r.code, r.stderr).toBe(0)
    const reference = readme.slice(readme.indexOf('<!-- commands -->'), readme.indexOf('<!-- commandsstop -->'))
    for (const id of ['checkout void', 'events list', 'plan sensor add', 'sandbox clock', 'webhook listen']) {
      expect(reference).toContain(`## \`opsctl ${id}`)
    }

    // Compared as a whole: a difference means the help changed and `npm run readme` was not run.
    expect(readFileSync(copy, 'utf8') === readme, 'docs/commands.md is stale: run `npm run build && npm run readme`').toBe(true)
  })

  it('is linked from the README, which stays short enough to read (the journey, not the reference)', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    expect(readme).toContain('(docs/commands.md)')
    expect(readme).not.toContain('<!-- commands -->')
    expect(readme.split('\n').length).toBeLessThanOrEqual(600)
  })
})
