/**
 * Bulk refunds as real processes (issue 24): a run killed with SIGKILL at a random point of its
 * journal, then run again, leaves exactly one refund per row and never sends a second one; in a
 * terminal the run asks once and shows a progress bar on stderr, and in a pipe it shows none.
 */
import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {setTimeout as delay} from 'node:timers/promises'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

// @ts-expect-error a plain .mjs helper shared with the benchmark
import {moveClock, paidCheckouts} from '../../bench/lib/paid-checkouts.mjs'
import {baseEnv, BIN, type Cli, ROOT, runInTerminal, type Sandbox, sandboxForFile} from './harness.js'

let cli: Cli
let sandbox: Sandbox
sandboxForFile([], (started, user) => {
  sandbox = started
  cli = user
})
let folder: string
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'opsctl-bulk-process-'))
})
afterAll(() => rmSync(folder, {force: true, recursive: true}))

const ROWS = 8

async function refundableFile(name: string, count = ROWS): Promise<{ids: string[]; path: string}> {
  const ids: string[] = await paidCheckouts({count, origin: sandbox.origin, reference: name})
  await moveClock({origin: sandbox.origin, token: sandbox.token})
  const path = join(folder, `${name}.csv`)
  writeFileSync(path, ['checkoutId,amount,currency,reason', ...ids.map((id) => `${id},40.00,PHP,event cancelled`)].join('\n') + '\n')
  return {ids, path}
}

const intents = (journal: string): number => {
  try {
    return readFileSync(journal, 'utf8').split('\n').filter((l) => l.includes('"t":"intent"')).length
  } catch {
    return 0
  }
}

/** Starts a bulk refund and kills it with SIGKILL once `after` intents are journalled (0: as soon as it started). */
async function killedRun(path: string, after: number): Promise<void> {
  const child = spawn(process.execPath, [BIN, 'refund', 'create', '--from-file', path, '--yes', '--json'], {cwd: ROOT, env: {...baseEnv(), ...cli.env}, stdio: 'ignore'})
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  // Waits for the condition (the test's timeout bounds it), or for the run to end by itself.
  while (child.exitCode === null && child.signalCode === null && intents(`${path}.journal`) < after) await delay(2)
  child.kill('SIGKILL')
  await exited
}

describe('SIGKILL at random points, then a rerun', () => {
  for (let run = 1; run <= 10; run++) {
    it(`run ${run}: exactly one refund per row, none sent twice`, async () => {
      const {ids, path} = await refundableFile(`kill${run}`)
      const after = Math.floor(Math.random() * (ROWS + 1))
      await killedRun(path, after)

      const rerun = await cli.run(['refund', 'create', '--from-file', path, '--yes', '--json'])
      expect(rerun.code, `${rerun.stderr} (killed after ${after} intents)`).toBe(0)
      const doc = JSON.parse(rerun.stdout)
      expect(doc.summary.applied + doc.summary.skipped).toBe(ROWS)
      expect(doc.results.every((r: any) => r.outcome === 'applied' || r.outcome === 'skipped')).toBe(true)
      for (const id of ids) {
        const {refunds} = await cli.json(['refund', 'list', id])
        expect(refunds.map((r: any) => [r.amount.value, r.status]), id).toEqual([['40.00', 'SUCCESS']])
      }

      // The service never saw a second refund for a row: no refusal of one in the audit log.
      const audit = readFileSync(join(cli.configDir, 'audit.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l))
      expect(audit.filter((l) => ids.includes(l.checkoutId) && l.outcome !== 'applied')).toEqual([])
    })
  }
})

describe('in a terminal and in a pipe', () => {
  it('asks once with the count and total, then shows a progress bar on stderr', async () => {
    const {ids, path} = await refundableFile('tty', 6)
    const result = await runInTerminal(['refund', 'create', '--from-file', path], [{send: 'y\r', when: 'Refund 6 checkouts, 240.00 PHP in total?'}], {env: cli.env})
    expect(result.code, result.stdout).toBe(0)
    // One question for the run: never the single command's question for each refund.
    expect(result.stdout).not.toContain('of checkout')
    expect(result.stdout).toMatch(/Refunds \[#+-*\] \d\/6 \d+\.\d\/s \d+s left/)
    expect(result.stdout).toContain('6 refunds applied (240.00 PHP), 0 refused, 0 unknown, 0 skipped')
    for (const id of ids) expect((await cli.json(['refund', 'list', id])).refunds).toHaveLength(1)
  })

  it('on a production profile the totals are typed back; a wrong total sends nothing', async () => {
    const added = await cli.run(
      ['profile', 'add', 'live', '--env', 'production', '--health-url', sandbox.healthUrl, '--checkout-url', sandbox.checkoutUrl, '--public-key', sandbox.publicKey, '--secret-key-stdin'],
      {input: sandbox.secretKey},
    )
    expect(added.code, added.stderr).toBe(0)
    const {ids, path} = await refundableFile('tty-prod', 2)
    const env: Record<string, string | undefined> = {...cli.env, OPSCTL_CHECKOUT_URL: undefined, OPSCTL_PROFILE: 'live'}
    const wrong = await runInTerminal(['refund', 'create', '--from-file', path], [{send: '80.00\r', when: 'Type 80.00 PHP to confirm:'}], {env})
    expect(wrong.code).toBe(2)
    expect(wrong.stdout).toContain('Refund 2 checkouts, 80.00 PHP in total, on PRODUCTION (live).')
    for (const id of ids) expect((await cli.json(['refund', 'list', id])).refunds).toEqual([])

    const typed = await runInTerminal(['refund', 'create', '--from-file', path], [{send: '80.00 PHP\r', when: 'Type 80.00 PHP to confirm:'}], {env})
    expect(typed.code, typed.stdout).toBe(0)
    expect(typed.stdout).toContain('Profile live (production) -> ')
    for (const id of ids) expect((await cli.json(['refund', 'list', id])).refunds).toHaveLength(1)
  })

  it('declined at the prompt: nothing sent, no journal', async () => {
    const {ids, path} = await refundableFile('tty-no', 2)
    const result = await runInTerminal(['refund', 'create', '--from-file', path], [{send: 'n\r', when: 'Refund 2 checkouts'}], {env: cli.env})
    expect(result.code).toBe(2)
    expect(result.stdout).toContain('nothing was sent')
    for (const id of ids) expect((await cli.json(['refund', 'list', id])).refunds).toEqual([])
    expect(intents(`${path}.journal`)).toBe(0)
  })

  it('piped: no progress bar, the plan and the summary on stderr', async () => {
    const {path} = await refundableFile('pipe', 3)
    const result = await cli.run(['refund', 'create', '--from-file', path, '--yes'])
    expect(result.code).toBe(0)
    expect(result.stderr).not.toContain('Refunds [')
    expect(result.stderr).not.toContain('\u001B')
    expect(result.stderr).toBe('Plan: 3 of 3 rows to send (120.00 PHP)\n3 refunds applied (120.00 PHP), 0 refused, 0 unknown, 0 skipped\n')
  })
})
