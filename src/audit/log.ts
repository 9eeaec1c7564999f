import {join} from 'node:path'

import type {AttemptRecord} from '../services/change.js'

import {scrubSecrets} from '../http/redact.js'
import {ensurePrivateFolder, openPrivateForAppend, unwritableFile} from '../profiles/private-files.js'

/**
 * The local audit log: one JSON line per attempt at a money or configuration change (checkout
 * creation, void, refund, webhook and customization changes), in `<config dir>/audit.jsonl`, mode
 * 0600, whatever became of it: applied, refused (by the service or by a rule before sending),
 * declined at the prompt, unknown, reconciled. It holds what support needs to trace a change
 * (time, profile, operation, ids, reference, amount, reason, outcome, code, request id) and, by
 * construction (only named fields are copied), no keys, sessions, passwords, card or buyer data.
 */
export interface AuditEntry {
  time: string
  profile: string
  env: string
  operation: string
  checkoutId?: string
  refundId?: string
  webhookId?: string
  /** The merchant's reference of a created checkout (requestReferenceNumber). */
  reference?: string
  amount?: {currency?: string; value: string}
  /** The reason given for a void or refund (`--reason`). */
  reason?: string
  /** One of ATTEMPT_OUTCOMES (a string: lines written by other versions are read as they are). */
  outcome: string
  /** The rule's code (refused by rule) or the service's error code. */
  code?: string
  status?: number
  requestId?: string
  message?: string
  reconciled?: boolean
  /** Written during a test run (`smoke`, a `scenario run` step): `checkout list` leaves its checkouts out by default. */
  run?: string
}

/**
 * Set while smoke or a scenario step runs (or by a user for a run of their own): the audit lines
 * written meanwhile carry it as `run`. Only a short name is kept.
 */
export const AUDIT_RUN_ENV = 'OPSCTL_AUDIT_RUN'

function currentRun(): string | undefined {
  const run = process.env[AUDIT_RUN_ENV]
  return run && /^[\w.-]{1,40}$/.test(run) ? run : undefined
}

export const AUDIT_FILE = 'audit.jsonl'

export function auditPath(configDir: string): string {
  return join(configDir, AUDIT_FILE)
}

/**
 * Appends one line, scrubbed by the secret registry (with `secrets` added to it: a server's message
 * may echo a credential). No lock: each line is one write to a file opened for appending (O_APPEND),
 * so lines of processes writing at once never overwrite each other.
 */
export async function appendAudit(configDir: string, entry: AuditEntry, secrets: string[] = []): Promise<void> {
  const run = currentRun()
  await appendPrivateLine(configDir, AUDIT_FILE, scrubSecrets(JSON.stringify(run && !entry.run ? {...entry, run} : entry), secrets))
}

/**
 * One line appended to a 0600 file of the 0700 config folder, in one write (O_APPEND: concurrent
 * writers never interleave). A file that cannot be written (a symbolic link in its place, a
 * folder, no permission, a full disk) is a UsageError naming it (openPrivateForAppend).
 */
export async function appendPrivateLine(configDir: string, fileName: string, line: string): Promise<void> {
  const path = join(configDir, fileName)
  await ensurePrivateFolder(configDir).catch((error: unknown) => {
    throw unwritableFile(path, error)
  })
  const file = await openPrivateForAppend(path)
  try {
    await file.appendFile(line + '\n', 'utf8').catch((error: unknown) => {
      throw unwritableFile(path, error)
    })
  } finally {
    await file.close()
  }
}

/** Before an audited change is sent: the audit log can take its line (opened for appending, created if missing), or a UsageError naming it. */
export async function checkAuditWritable(configDir: string): Promise<void> {
  const path = auditPath(configDir)
  await ensurePrivateFolder(configDir).catch((error: unknown) => {
    throw unwritableFile(path, error)
  })
  await (await openPrivateForAppend(path)).close()
}

function amountOf(value: unknown): AuditEntry['amount'] {
  if (!value || typeof value !== 'object') return undefined
  const v = value as Record<string, unknown>
  if (typeof v.value === 'string') return {value: v.value, ...(typeof v.currency === 'string' ? {currency: v.currency} : {})}
  return undefined
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value ? value : undefined
}

/** Turns what the HTTP layer saw of an attempt into an audit line. Only named fields are copied. */
export function entryFromAttempt(record: AttemptRecord, profile: string, env: string, now = new Date()): AuditEntry {
  const body = (record.body ?? {}) as Record<string, unknown>
  const data = (record.data ?? {}) as Record<string, unknown>
  const extra = record.note ?? {}
  // A refund the service answers with status FAILED moved nothing: the service refused it.
  const failedAnswer = record.outcome === 'applied' && data.status === 'FAILED'
  return {
    time: now.toISOString(),
    profile,
    env,
    operation: record.operation.id,
    checkoutId: str(record.params.checkoutId) ?? str(data.checkoutId),
    refundId: str(data.refundId),
    webhookId: str(record.params.webhookId) ?? (record.operation.id.toLowerCase().includes('webhook') ? str(data.id) : undefined),
    reference: str(body.requestReferenceNumber),
    amount: amountOf(body.amount) ?? amountOf(body.totalAmount) ?? amountOf(extra.amount),
    reason: str(body.reason),
    outcome: failedAnswer ? 'refused' : record.outcome,
    code: record.code,
    status: record.status,
    requestId: record.requestId,
    message: failedAnswer ? 'the service answered status FAILED: nothing was refunded' : record.message,
    ...(record.reconciled ? {reconciled: true} : {}),
  }
}
