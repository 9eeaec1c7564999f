/**
 * Ctrl-C while audited changes wait for their answers (one, or a bulk run's several). The process
 * still ends by SIGINT (130 in a shell), as any command Ctrl-C stops mid-request; first each of them
 * is audited as `unknown` (it was sent, so it may have been applied) and stderr says so once. A
 * second Ctrl-C ends it at once.
 */
import {removeOnSignal} from '../runtime/remove-on-signal.js'

type Audit = () => Promise<void>

const awaiting = new Set<Audit>()
let noteTo: (text: string) => void = () => undefined
let commandsAnsweringCtrlC = 0
/** Lets go of Ctrl-C (../runtime/remove-on-signal.ts) once nothing awaits its answer. */
let release: (() => void) | undefined

/** On Ctrl-C: every attempt still waiting, audited as unknown, and a word on stderr. */
async function auditAwaiting(): Promise<void> {
  const audits = [...awaiting]
  awaiting.clear()
  release = undefined
  const what = audits.length === 1 ? 'the change' : `${audits.length} changes`
  noteTo(`Interrupted before the answer came: ${what} may have been applied. Audited as unknown (opsctl audit list).`)
  await Promise.allSettled(audits.map((audit) => audit()))
}

/** Audits the attempt under way if Ctrl-C comes before its answer; the returned function says the answer came. */
export function auditIfInterrupted(audit: Audit, note: (text: string) => void): () => void {
  if (commandsAnsweringCtrlC > 0) return () => undefined
  // a wrapper of its own: the same function given twice is two attempts
  const entry: Audit = () => audit()
  release ??= removeOnSignal(auditAwaiting, ['SIGINT'])
  awaiting.add(entry)
  noteTo = note
  return () => {
    if (awaiting.delete(entry) && awaiting.size === 0) {
      release?.()
      release = undefined
    }
  }
}

/**
 * Held by a command that answers Ctrl-C itself while it does (`webhook listen` puts its webhooks
 * back, through audited calls a Ctrl-C must not cut short); the returned function lets go.
 */
export function answerCtrlCHere(): () => void {
  commandsAnsweringCtrlC++
  let released = false
  return () => {
    if (released) return
    released = true
    commandsAnsweringCtrlC--
  }
}
