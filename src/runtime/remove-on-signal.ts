/**
 * What a run made that must not outlive it when Ctrl-C (SIGINT) or SIGTERM ends it: a tenant
 * `sandbox diff` made on another sandbox. On the first signal each registered removal runs, then the
 * process ends by that signal (130 or 143 in a shell), as Node's default would have; a second signal
 * meanwhile ends it at once (the listeners are gone). Like ../cli/interrupted-attempt.ts, which
 * audits changes waiting for their answers on Ctrl-C.
 */
type Removal = () => Promise<unknown>

const SIGNALS = ['SIGINT', 'SIGTERM'] as const
const removals = new Set<Removal>()

function onSignal(signal: NodeJS.Signals): void {
  for (const s of SIGNALS) process.off(s, onSignal)
  const pending = [...removals]
  removals.clear()
  Promise.allSettled(pending.map((remove) => remove()))
    .then(() => process.kill(process.pid, signal))
    .catch(() => undefined)
}

/** Runs `remove` if SIGINT or SIGTERM comes before the returned function is called (the run removed it itself). */
export function removeOnSignal(remove: Removal): () => void {
  const entry: Removal = () => remove()
  if (removals.size === 0) for (const s of SIGNALS) process.on(s, onSignal)
  removals.add(entry)
  return () => {
    if (removals.delete(entry) && removals.size === 0) for (const s of SIGNALS) process.off(s, onSignal)
  }
}
