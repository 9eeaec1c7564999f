/**
 * A bulk void or refund from a file, start to end: read the journal, plan (nothing sent), stop
 * there for a dry run, else ask once (the CLI's `confirm`), then send (./send.ts). The journal is
 * held by one run at a time and tied to its input (./journal.ts).
 */
import type {MoneyDeps} from '../../services/checkout/money-change.js'

import {UsageError} from '../../errors.js'
import {type Cents, formatCents} from '../../services/checkout/money.js'
import {openInput} from './input.js'
import {JournalLock, JournalWriter, readJournal} from './journal.js'
import {type Plan, planBulk, type RowResult} from './plan.js'
import {type BulkKind, bulkShape, type RowRules} from './rows.js'
import {sendBulk} from './send.js'

export {INPUT_LIMITS} from './input.js'
export type {Plan, RowResult} from './plan.js'

export interface Total {
  currency: string
  amount: string
}

export interface BulkSummary {
  kind: BulkKind
  input: string
  journal: string
  rows: number
  applied: number
  refused: number
  unknown: number
  skipped: number
  /** Rows whose outcome was read back from the service (an earlier run stopped, or an answer was lost). */
  reconciled: number
  /** What moved, per currency. */
  totals: Total[]
}

export interface PlanSummary {
  kind: BulkKind
  input: string
  journal: string
  rows: number
  /** Rows that would be sent. */
  toSend: number
  /** Rows an earlier run journalled without an outcome: read back before anything is sent. */
  toReconcile: number
  refused: number
  skipped: number
  /** What would move, per currency. */
  totals: Total[]
}

export interface BulkDocument {
  summary: BulkSummary
  results: RowResult[]
}

export interface PlanDocument {
  plan: PlanSummary
  results: RowResult[]
}

export interface BulkOptions {
  kind: BulkKind
  /** A path, or `-` for standard input. */
  file: string
  journal: string
  concurrency: number
  rules: RowRules
  dryRun: boolean
  keepAll: boolean
  /** Asks once, with the plan (throws to send nothing). Not called when there is nothing to send. */
  confirm(plan: PlanSummary, refused: RowResult[]): Promise<void>
  progress?: {planned?(rows: number): void; sent?(done: number, total: number, result: RowResult): void; done?(): void}
  /** Warnings for people (a damaged journal line). */
  warn(text: string): void
}

export function totalsOf(totals: Map<string, Cents>): Total[] {
  return [...totals.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([currency, cents]) => ({amount: formatCents(cents), currency}))
}

function planSummary(plan: Plan, options: BulkOptions, label: string): PlanSummary {
  return {
    input: label,
    journal: options.journal,
    kind: plan.kind,
    refused: plan.refused.size,
    rows: plan.rows,
    skipped: plan.skipped,
    toReconcile: plan.toReconcile,
    toSend: plan.toSend,
    totals: totalsOf(plan.totals),
  }
}

const byLine = (refused: Map<number, RowResult>) => [...refused.values()].sort((a, b) => a.line - b.line)

export async function runBulk(money: MoneyDeps, options: BulkOptions): Promise<BulkDocument | PlanDocument> {
  const input = await openInput(options.file, bulkShape(options.kind))
  let lock: JournalLock | undefined
  let writer: JournalWriter | undefined
  try {
    if (!options.dryRun) lock = await JournalLock.take(options.journal)
    const journal = await readJournal(options.journal, options.kind)
    if (journal.damaged.length > 0) {
      const shown = journal.damaged.slice(0, 5).join(', ') + (journal.damaged.length > 5 ? ', ...' : '')
      options.warn(
        `Warning: ${journal.damaged.length} line(s) of the journal ${options.journal} could not be read (line ${shown}); ` +
          'what they said is not trusted: those rows are checked against the service as if never sent',
      )
    }

    const plan = await planBulk(money.client, {concurrency: options.concurrency, input, journal, kind: options.kind, onRow: options.progress?.planned, rules: options.rules})
    options.progress?.done?.()
    if (journal.header && journal.header.input !== plan.inputHash) {
      throw new UsageError(
        `The journal ${options.journal} belongs to another input (its rows differ from those of ${input.label}); pass --journal with a new file for this input, ` +
          'or run the original file again. Nothing was sent',
      )
    }

    const summary = planSummary(plan, options, input.label)
    const refused = byLine(plan.refused)
    if (options.dryRun) return {plan: summary, results: refused}
    const needed = plan.toSend + plan.toReconcile
    if (needed > 0) await options.confirm(summary, refused)
    await input.unchanged()
    writer = await JournalWriter.open(options.journal, {input: plan.inputHash, kind: options.kind}, journal.header !== undefined)
    let done = 0
    const report = await sendBulk(money, {
      concurrency: options.concurrency,
      input,
      journal,
      keepAll: options.keepAll,
      kind: options.kind,
      onRow: (result) => options.progress?.sent?.(++done, needed, result),
      plan,
      rules: options.rules,
      writer,
    })
    options.progress?.done?.()
    return {
      results: report.results,
      summary: {
        applied: report.counts.applied,
        input: input.label,
        journal: options.journal,
        kind: options.kind,
        reconciled: report.counts.reconciled,
        refused: report.counts.refused,
        rows: plan.rows,
        skipped: report.counts.skipped,
        totals: totalsOf(report.applied),
        unknown: report.counts.unknown,
      },
    }
  } finally {
    options.progress?.done?.()
    await writer?.close()
    await lock?.release()
    await input.close()
  }
}
