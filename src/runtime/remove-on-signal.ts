/**
 * Work that must run before a signal ends the process: a tenant `sandbox diff` made on another
 * sandbox (removed on SIGINT or SIGTERM), the changes audited as unknown when Ctrl-C comes before
 * their answers (../cli/interrupted-attempt.ts). On the first of those signals the tasks registered
 * for it run, then the process ends by that signal (130 or 143 in a shell), as Node's default
 * would have; a second signal meanwhile ends it at once (every listener is gone). Node's default
 * stays whenever nothing is registered.
 */
type Task = () => Promise<unknown>

const SIGNALS = ['SIGINT', 'SIGTERM'] as const
type Signal = (typeof SIGNALS)[number]
const tasks = new Map<Task, readonly Signal[]>()

/** A listener per signal, each knowing its own (an emitted signal may come without its name). */
const listeners: Record<Signal, () => void> = {SIGINT: () => onSignal('SIGINT'), SIGTERM: () => onSignal('SIGTERM')}

function onSignal(signal: Signal): void {
  for (const s of SIGNALS) process.off(s, listeners[s])
  const due = [...tasks].filter(([, signals]) => signals.includes(signal)).map(([task]) => task)
  tasks.clear()
  Promise.allSettled(due.map((task) => task()))
    .then(() => process.kill(process.pid, signal))
    .catch(() => undefined)
}

function listenTo(signal: Signal): void {
  const wanted = [...tasks.values()].some((signals) => signals.includes(signal))
  if (wanted && !process.listeners(signal).includes(listeners[signal])) process.on(signal, listeners[signal])
  if (!wanted) process.off(signal, listeners[signal])
}

/** Runs `task` if one of `signals` comes before the returned function is called (the run did it itself, or no longer needs it). */
export function removeOnSignal(task: Task, signals: readonly Signal[] = SIGNALS): () => void {
  // a wrapper of its own: the same function given twice is two tasks
  const entry: Task = () => task()
  tasks.set(entry, signals)
  for (const s of SIGNALS) listenTo(s)
  return () => {
    if (tasks.delete(entry)) for (const s of SIGNALS) listenTo(s)
  }
}
