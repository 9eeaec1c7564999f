/**
 * The results of smoke and scenario runs as a view of the output contract: one row a step, shown
 * like every other list (a borderless table that fits the terminal, TSV when piped, CSV, ndjson),
 * `--columns` checked against these columns. `--reporter json|junit` prints those forms instead.
 */
import {failureText, reportedResult, type StepResult, type Summary} from '../../runtime/report.js'
import {type Row, type View} from '../output/view.js'

export const REPORT_COLUMNS = ['suite', 'name', 'operation', 'outcome', 'ms', 'detail'] as const

/** One step as a row: for a failure or a skip, what went wrong and the request id to quote; for a pass, the request id. */
function reportRow(step: StepResult): Row {
  const r = reportedResult(step, false)
  const detail =
    r.outcome === 'passed' ? (r.requestId ?? '') : [failureText(r), r.requestId && `request id ${r.requestId}`].filter(Boolean).join(' | ')
  return {suite: r.suite, name: r.name, operation: r.operation ?? '', outcome: r.outcome, ms: r.durationMs, detail}
}

export const REPORT_VIEW: View<{results: StepResult[]; summary: Summary}> = {
  columns: REPORT_COLUMNS,
  // A failure's message is the point of the report, with the step it is about; the operation and timing give way first.
  layout: {
    detail: {kind: 'reason', priority: 1},
    ms: {priority: 3},
    name: {kind: 'text', min: 12, priority: 1},
    operation: {priority: 3},
    outcome: {priority: 1},
    suite: {priority: 1},
  },
  rows: (document) => document.results.map((r) => reportRow(r)),
}
