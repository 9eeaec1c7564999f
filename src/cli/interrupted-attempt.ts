/**
 * Ctrl-C while an audited change waits for its answer. The process still ends by SIGINT (130 in a
 * shell), as any command Ctrl-C stops mid-request; first the attempt is audited as `unknown` (it was
 * sent, so it may have been applied) and stderr says so. A second Ctrl-C ends it at once.
 */
export function auditIfInterrupted(audit: () => Promise<void>, note: (text: string) => void): () => void {
  if (commandsAnsweringCtrlC > 0) return () => undefined
  const onSignal = (): void => {
    process.off('SIGINT', onSignal)
    note('Interrupted before the answer came: the change may have been applied. The attempt is audited as unknown (opsctl audit list).')
    // With this listener gone, the signal ends the process as Node's default does (after the
    // handlers of signal-exit, which a file writer may have installed, which then re-raise it).
    audit()
      .catch(() => undefined)
      .finally(() => process.kill(process.pid, 'SIGINT'))
  }

  process.on('SIGINT', onSignal)
  return () => process.off('SIGINT', onSignal)
}

let commandsAnsweringCtrlC = 0

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
