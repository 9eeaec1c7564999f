/**
 * The CI author's day, as typed (real processes): `npm start`'s smoke against an embedded sandbox,
 * at an 80-column terminal and in a pipe (a CI log); a tenant of their own for the job, its secret
 * kept out of the log; the example scenario on that tenant with a JUnit report; and the mistakes
 * of a first scenario file. A green run prints nothing on stderr but its progress and summary.
 */
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {fits, onScreen} from '../helpers/screen.js'
import {type Cli, ROOT, sandboxForFile} from './harness.js'

let cli: Cli
let folder: string
let tenant: string | undefined
const UUID = /[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}/
/** The job's profile is named on the command line: the environment's sandbox URLs are not set for it. */
const JOB_ENV = {OPSCTL_CHECKOUT_URL: undefined, OPSCTL_HEALTH_URL: undefined}

sandboxForFile([], (_started, user) => {
  cli = user
})
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'opsctl-ci-'))
})
// Hooks run in reverse order: the tenant goes before its sandbox.
afterAll(async () => {
  if (tenant) await cli.run(['sandbox', 'tenant', 'delete', tenant, '--yes'])
  rmSync(folder, {force: true, recursive: true})
})

describe("the CI author's day", () => {
  it('smoke --sandbox in a CI log: the results on stdout; on stderr only the plan line and the summary, no warning', async () => {
    const smoke = await cli.run(['smoke', '--sandbox'])
    expect(smoke.code, smoke.stderr).toBe(0)
    expect(smoke.stderr).toMatch(/^Smoke: 31 steps against an embedded sandbox at http:\/\/127\.0\.0\.1:\d+\n31 passed, 0 failed, 0 skipped\n$/)
    const rows = smoke.stdout.trimEnd().split('\n').slice(1)
    expect(rows).toHaveLength(31)
    for (const row of rows) expect(row.split('\t')[3], row).toBe('passed')
  })

  it('smoke --sandbox at 80 columns: the progress line within the width, each request id whole on its row, the summary last', async () => {
    const screen = await onScreen(['smoke', '--sandbox'], cli.env)
    expect(screen.code, screen.lines.join('\n')).toBe(0)
    // every form the progress line took, not only its last
    const forms = screen.raw.split(/\r|\n/).map((f) => f.replaceAll('\u001B[2K', '')).filter((f) => f.startsWith('smoke: '))
    expect(forms.length).toBeGreaterThanOrEqual(31)
    for (const form of forms) expect([...form].length, form).toBeLessThanOrEqual(79)
    fits(screen.lines)
    expect(screen.lines.join('\n')).not.toMatch(/warning/i)
    expect(screen.lines.at(-1)).toBe('31 passed, 0 failed, 0 skipped')
    const rows = screen.lines.filter((l) => /^(?:health|checkout) /.test(l))
    expect(rows).toHaveLength(31)
    // a step with a request is one row ending in its whole request id (the hosted page and the webhook have none)
    expect(rows.filter((r) => new RegExp(`  ${UUID.source}$`).test(r))).toHaveLength(29)
  })

  it('a tenant for the job: its secret key masked in the log, whole in the profile it saved', async () => {
    const created = await cli.run(['sandbox', 'tenant', 'create', '--ttl', '30m', '--save-profile', 'ci-job'])
    expect(created.code, created.stderr).toBe(0)
    expect(created.stderr).toBe('')
    tenant = /^id\t(tn_\w+)$/m.exec(created.stdout)![1]
    const shown = /^secretKey\t(.*)$/m.exec(created.stdout)![1]
    expect(shown).toMatch(/^sk-t…[\w-]{3}$/)
    const saved = JSON.parse(readFileSync(join(cli.configDir, 'profiles.json'), 'utf8'))
    const secret = JSON.stringify(saved).match(/"(sk-tenant-[\w-]+)"/)![1]
    expect(created.stdout).not.toContain(secret)
    expect(secret.endsWith(shown.slice(-3))).toBe(true)
    expect(created.stdout).toMatch(/^clock\t\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+08:00$/m)
  })

  it('the example scenario on the tenant, with a JUnit report whose cases are told apart by name', async () => {
    const junit = join(folder, 'scenario.xml')
    const run = await cli.run(['scenario', 'run', join(ROOT, 'examples/checkout-happy-path.yaml'), '-p', 'ci-job', '--junit-file', junit], {env: JOB_ENV})
    expect(run.code, run.stderr).toBe(0)
    expect(run.stderr).toMatch(/^Scenario "checkout happy path": (\d+) step\(s\)\n\1 passed, 0 failed, 0 skipped\n$/)
    const names = [...readFileSync(junit, 'utf8').matchAll(/<testcase classname="[^"]*" name="([^"]*)"/g)].map((m) => m[1])
    expect(names.length).toBeGreaterThan(5)
    expect(new Set(names).size).toBe(names.length)
    for (const name of names) expect(name).not.toContain('${')
    expect(names).toEqual(expect.arrayContaining([expect.stringMatching(/^checkout get chk_[\da-f]{24} --json$/)]))

    // the scenario's checkouts are the run's, not the merchant's: left out of checkout list, and said so
    const listed = await cli.run(['checkout', 'list', '-p', 'ci-job'], {env: JOB_ENV})
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stderr).toBe(
      [
        'No checkouts created from this machine with profile ci-job but by smoke or scenario runs (2, left out).',
        '  See them: opsctl checkout list -p ci-job --include-runs',
        '  Create one: opsctl checkout create --amount 150.00',
        "  A sandbox's seeded paid checkouts: opsctl checkout list --sandbox-seeded",
        '',
      ].join('\n'),
    )
    const runs = await cli.json(['checkout', 'list', '-p', 'ci-job', '--include-runs'], {env: JOB_ENV})
    expect(runs.checkouts).toHaveLength(2)
  })

  it("a first scenario file's mistakes: every problem on a line of its own, exit 2; a verb of another tool gets the command meant", async () => {
    const file = join(folder, 'first.yaml')
    writeFileSync(file, 'name: first\nsteps:\n  - name: hook\n    runn: opsctl webhook list\n    expect: {exit: "x"}\n')
    const bad = await cli.run(['scenario', 'run', file])
    expect(bad.code).toBe(2)
    expect(bad.stdout).toBe('')
    expect(bad.stderr).toBe(
      [
        `Error: 3 problems in ${file}:`,
        `  ${file}:3:5: missing key "run" at steps.0 (every step runs one opsctl command line); expected name, run, expect, save, timeout`,
        `  ${file}:4:5: unknown key "runn" at steps.0; expected name, run, expect, save, timeout`,
        `  ${file}:5:20: steps.0.expect.exit: expected a number, found text "x"`,
        '  Try this: Fix the file; nothing was run',
        '',
      ].join('\n'),
    )

    writeFileSync(file, 'name: first\nsteps:\n  - run: opsctl webhook create --name CHECKOUT_SUCCESS --url https://example.com/hook\n')
    const verb = await cli.run(['scenario', 'run', file, '-p', 'ci-job'], {env: JOB_ENV})
    expect(verb.code).toBe(1)
    expect(verb.stdout).toContain('`webhook create` is not a command. Did you mean `webhook register`? (exit 2, expected 0)')
  })
})
