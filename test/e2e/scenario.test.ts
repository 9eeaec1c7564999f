import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
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

  for (const file of ['examples/checkout-happy-path.yaml', 'examples/health-journey.yaml']) {
    it(`runs ${file} green`, async () => {
      const cli = cliFor(sandbox)
      try {
        const result = await cli.run(['scenario', 'run', join(ROOT, file), '--reporter', 'json'], {timeoutMs: 90_000})
        expect(result.code, result.stderr).toBe(0)
        const report = JSON.parse(result.stdout)
        expect(report.summary.failed).toBe(0)
        expect(report.summary.passed).toBe(report.results.length)
      } finally {
        cli.cleanup()
      }
    }, 120_000)
  }

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
})
