/**
 * The README's quick start, run exactly as written: each `<!-- journey: ... -->` block is run with
 * bash, in README order, against one fresh seeded sandbox, with `opsctl` on PATH (a shim to this
 * checkout's bin/run.js) and a config folder of its own. Every command must exit 0; the ids a block
 * needs come from its own earlier commands. Needs `npm run build` first (npm test does it).
 */
import {chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {delimiter, join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'

import {BIN, type Cli, ROOT, runCli, sandboxForFile} from './harness.js'

/** The journey's blocks, in README order: a title and the shell text of its ```sh block. */
function journey(): [string, string][] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  return [...readme.matchAll(/<!-- journey: (.+?) -->\n```sh\n([\s\S]*?)```/g)].map((m) => [m[1], m[2]])
}

const blocks = journey()
const binDir = mkdtempSync(join(tmpdir(), 'opsctl-bin-'))
writeFileSync(join(binDir, 'opsctl'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`)
chmodSync(join(binDir, 'opsctl'), 0o755)

let cli: Cli
sandboxForFile(['--seed'], (_sandbox, user) => {
  cli = user
})

afterAll(() => {
  rmSync(binDir, {force: true, recursive: true})
})

describe('the README journey', () => {
  it('has its blocks', () => {
    expect(blocks.map(([title]) => title)).toEqual([
      'sign in',
      'metrics, plan and group',
      'record an event',
      'support view',
      'pay and void',
      'refund the next day',
      'what changed',
    ])
  })

  // In order: a later block relies on what an earlier one did (the sign-in, the clock).
  it.each(blocks)('%s: every command exits 0', async (_title, commands) => {
    // Stops at the first command that fails and names it; the last line proves every one ran.
    const script = `set -eo pipefail\ntrap 'echo "failed: $BASH_COMMAND" >&2' ERR\n${commands}\necho "journey block done"\n`
    const r = await runCli(['-c', script], {bin: 'bash', env: {...cli.env, PATH: `${binDir}${delimiter}${process.env.PATH}`}})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/journey block done\n$/)
  })

  it("ends where the README's next suggestion works: the health request it names, and checkout list's states", async () => {
    const env = {...cli.env, PATH: `${binDir}${delimiter}${process.env.PATH}`}
    // The README suggests this line right after the journey, whose clock moved a day on.
    const me = await runCli(['-c', 'opsctl api health GET /api/users/me'], {bin: 'bash', env})
    expect(me.code, me.stderr).toBe(0)
    const list = await runCli(['-c', 'opsctl checkout list --json'], {bin: 'bash', env})
    expect(list.code, list.stderr).toBe(0)
    const {checkouts} = JSON.parse(list.stdout)
    // newest first: the gift (refunded in part), then the order (voided)
    expect(checkouts.map((c: any) => [c.amount, c.state, c.source])).toEqual([
      ['90.00', 'refunded 50.00', 'service'],
      ['150.00', 'voided', 'service'],
    ])
  })
})
