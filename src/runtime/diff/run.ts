/**
 * A whole `sandbox diff` run once the profile's side is known: a look at its services and
 * credentials, our side made for the run (an embedded sandbox, or a tenant on --sandbox-url),
 * the probes, and our side removed again, whatever happened.
 */
import type {Transport} from '../../http/transport.js'

import {notAnsweringError, unanswered} from '../reachability.js'
import {type DiffReport, type DiffSide, type Probe, type ProbeResult, runProbes} from './probe.js'
import {checkCredentials, embeddedSide, tenantSide} from './sides.js'

/** A sandbox started in this process for the run (the command starts it: only commands load the emulator). */
export interface StartedSandbox {
  origin: string
  token: string
  close(): Promise<void>
}

export interface DiffRun {
  probes: readonly Probe[]
  theirs: DiffSide
  transport: Transport
  configDir: string
  timeoutMs: number
  /** --yes: the probes that change data run too */
  changes: boolean
  /** the origin of a sandbox on which ours is a tenant made for the run; without it, `start` starts ours */
  sandboxOrigin?: string
  start(): Promise<StartedSandbox>
  /** chatter for people (stderr) */
  note(text: string): void
  onProbe?(result: ProbeResult): void
  /** what a clean-up could not remove, as soon as it is known */
  onLeft(left: string[]): void
}

export async function runDiff(run: DiffRun): Promise<DiffReport> {
  const {theirs, transport} = run
  const services = [...new Set(run.probes.map((p) => p.service))]
  const missing = await unanswered(transport, services.map((s) => theirs.targets[s]), run.timeoutMs)
  if (missing.length > 0) throw notAnsweringError(missing, theirs.sandbox !== undefined)
  await checkCredentials(theirs, services)

  const withUser = services.includes('health')
  let ours: {side: DiffSide; remove(): Promise<void>}
  if (run.sandboxOrigin === undefined) {
    const sandbox = await run.start()
    ours = await embeddedSide(sandbox.origin, sandbox.token, transport, withUser).then(
      (side) => ({remove: () => sandbox.close(), side}),
      async (error) => {
        await sandbox.close()
        throw error
      },
    )
  } else {
    ours = await tenantSide(run.sandboxOrigin, transport, run.configDir, withUser)
  }

  let report: DiffReport | undefined
  try {
    run.note(`Sandbox diff: ${run.probes.length} probes; theirs: ${theirs.label}; ours: ${ours.side.label}`)
    report = await runProbes(run.probes, {ours: ours.side, theirs}, {changes: run.changes, onLeft: run.onLeft, onProbe: run.onProbe})
    return report
  } finally {
    await ours.remove().catch((error: Error) => {
      const left = `ours: ${ours.side.label} (${error.message.split('\n')[0]})`
      report?.left.push(left)
      run.onLeft([left])
    })
  }
}

/** The run's last line: "2 differences; 20 probes answered alike, 1 differently, 3 skipped, 0 failed on both sides". */
export function diffSummary(report: DiffReport): string {
  const count = (o: string) => report.probes.filter((p) => p.outcome === o).length
  const n = report.differences.length
  return (
    `${n} ${n === 1 ? 'difference' : 'differences'}; ${count('same')} probes answered alike, ` +
    `${count('different')} differently, ${count('skipped')} skipped, ${count('failed')} failed on both sides`
  )
}
