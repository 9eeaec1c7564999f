/**
 * Results of scripted checks (smoke steps, scenario steps) and the ways to report them: a list
 * for people and pipes (src/cli/views/report.ts), JSON for tools, JUnit XML for CI systems. Progress lines go to stderr
 * while a run is under way; the report itself is data, on stdout or in a file.
 */
import {escapeControlChars} from '../control-chars.js'
import {maskPatientText, maskText} from '../http/redact.js'
import {registeredServiceModules} from '../http/services.js'
import {patientDataShown} from '../services/patient-data-env.js'

export const REPORTERS = ['table', 'json', 'junit'] as const
export type Reporter = (typeof REPORTERS)[number]

export type Outcome = 'failed' | 'passed' | 'skipped'

export interface StepResult {
  /** the service or scenario the step belongs to (one JUnit testsuite each) */
  suite: string
  name: string
  /** the operation (smoke) or the command (scenario: `checkout create`) the step exercises */
  operation?: string
  /** a scenario step's line in its file */
  line?: number
  outcome: Outcome
  durationMs: number
  requestId?: string
  message?: string
  /** a scenario step that ended with another exit code than it expected (the message is then the command's error message) */
  exit?: {code: number; expected: number}
}

/** What went wrong: the reason first (a narrow table cuts the end), then the exit code when that was the surprise. */
export function failureText(r: StepResult): string | undefined {
  if (!r.exit) return r.message
  const exit = `exit ${r.exit.code}, expected ${r.exit.expected}`
  return r.message ? `${r.message} (${exit})` : exit
}

export interface Summary {
  passed: number
  failed: number
  skipped: number
}

export function summarize(results: readonly StepResult[]): Summary {
  const summary: Summary = {failed: 0, passed: 0, skipped: 0}
  for (const r of results) summary[r.outcome]++
  return summary
}

/** The last line of every run, on its own line. */
export function summaryLine(s: Summary): string {
  return `${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped`
}

/** Flags whose value is patient data, as a step's command line names them: `--given-name`, `--symptom`... (the registered services' patient data fields). */
let patientFlagValue: RegExp | undefined

/** A step's command line with the values of its patient data flags masked (`--given-name *****`). */
function maskPatientFlags(line: string): string {
  if (!patientFlagValue) {
    const fields = registeredServiceModules().flatMap((m) => m.patientData ?? [])
    const flags = [...new Set(fields.map((f) => f.replaceAll(/[A-Z]/g, (c) => `-${c.toLowerCase()}`).replace(/s$/, '')))]
    if (flags.length === 0) return line
    patientFlagValue = new RegExp(String.raw`(--(?:${flags.join('|')})s?(?:=|\s+))("[^"]*"|'[^']*'|\S+)`, 'g')
  }

  return line.replaceAll(patientFlagValue, (_, flag: string, value: string) => flag + maskText(value))
}

/**
 * A step's texts as a report shows them: email addresses and the values of patient data flags
 * masked (a step named after a `users create --email ... --given-name ...` line;
 * OPSCTL_TRACE_PATIENT_DATA=1 shows them), and, except in JSON, control characters escaped
 * (names come from a file, messages from services).
 */
export function reportedResult(r: StepResult, escape = true): StepResult {
  const show = patientDataShown()
  const text = (t: string) => {
    const masked = show ? t : maskPatientText(maskPatientFlags(t))
    return escape ? escapeControlChars(masked) : masked
  }

  return {
    ...r,
    name: text(r.name),
    suite: text(r.suite),
    ...(r.operation === undefined ? {} : {operation: text(r.operation)}),
    ...(r.message === undefined ? {} : {message: text(r.message)}),
    ...(r.requestId === undefined ? {} : {requestId: text(r.requestId)}),
  }
}

const MARK: Record<Outcome, string> = {failed: 'FAIL', passed: 'ok  ', skipped: 'skip'}

/** One progress line per finished step (for stderr). */
export function progressLine(step: StepResult): string {
  const r = reportedResult(step)
  const where = [r.operation, r.line !== undefined && `line ${r.line}`].filter(Boolean).join(', ')
  const op = where ? ` (${where})` : ''
  const text = failureText(r)
  const extra = r.outcome === 'passed' ? '' : text ? ` - ${text}` : ''
  const id = r.outcome === 'failed' && r.requestId ? ` [request id ${r.requestId}]` : ''
  return `${MARK[r.outcome]} ${r.suite} > ${r.name}${op} ${r.durationMs} ms${extra}${id}`
}

/** The report forms of `--reporter` and `--junit-file` (the results list itself is src/cli/views/report.ts). */
export async function renderReport(steps: readonly StepResult[], reporter: 'json' | 'junit', title = 'opsctl'): Promise<string> {
  if (reporter === 'json') return JSON.stringify({results: steps.map((r) => reportedResult(r, false)), summary: summarize(steps)}, null, 2)
  return toJUnit(
    steps.map((r) => reportedResult(r)),
    escapeControlChars(title),
  )
}

function xml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;')
    .replaceAll(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '')
}

const seconds = (ms: number) => (ms / 1000).toFixed(3)

/** JUnit XML as CI systems read it: one testsuite per suite, one testcase per step. */
export function toJUnit(results: readonly StepResult[], title: string): string {
  const suites = new Map<string, StepResult[]>()
  for (const r of results) suites.set(r.suite, [...(suites.get(r.suite) ?? []), r])
  const total = summarize(results)
  const totalMs = results.reduce((sum, r) => sum + r.durationMs, 0)
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(title)}" tests="${results.length}" failures="${total.failed}" skipped="${total.skipped}" errors="0" time="${seconds(totalMs)}">`,
  ]
  for (const [suite, cases] of suites) {
    const s = summarize(cases)
    const ms = cases.reduce((sum, r) => sum + r.durationMs, 0)
    lines.push(
      `  <testsuite name="${xml(suite)}" tests="${cases.length}" failures="${s.failed}" skipped="${s.skipped}" errors="0" time="${seconds(ms)}">`,
    )
    for (const r of cases) {
      // A scenario's one suite is named like the run: `nightly-ci`, not `nightly-ci.nightly-ci`.
      const classname = suite === title ? suite : `${title}.${suite}`
      const attrs = `classname="${xml(classname)}" name="${xml(r.name)}" time="${seconds(r.durationMs)}"`
      if (r.outcome === 'passed') {
        lines.push(`    <testcase ${attrs}/>`)
        continue
      }

      lines.push(`    <testcase ${attrs}>`)
      if (r.outcome === 'skipped') lines.push(`      <skipped message="${xml(r.message ?? 'skipped')}"/>`)
      else {
        const message = [failureText(r) ?? 'failed', r.requestId && `request id ${r.requestId}`].filter(Boolean).join(' | ')
        const detail = [r.operation && `operation: ${r.operation}`, r.line !== undefined && `line: ${r.line}`, r.requestId && `request id: ${r.requestId}`, failureText(r)]
          .filter(Boolean)
          .join('\n')
        lines.push(`      <failure message="${xml(message)}" type="AssertionError">${xml(detail)}</failure>`)
      }

      lines.push('    </testcase>')
    }

    lines.push('  </testsuite>')
  }

  lines.push('</testsuites>')
  return lines.join('\n')
}
