import * as z from 'zod'

export const FaultKind = z.enum(['drop', 'drop-after-commit', '500', 'delay'])

export const Fault = z.object({
  /** operation id, e.g. refundCheckout; `*` for any operation */
  op: z.string().min(1),
  kind: FaultKind,
  ms: z.number().int().min(0).max(60_000).optional(),
})
export type Fault = z.infer<typeof Fault>

export const FaultScript = z.object({next: z.array(Fault).min(1)})

/**
 * Faults scripted for the next requests, each used exactly once: the first queued fault whose
 * `op` matches an incoming operation is taken off the queue and applied to that request.
 */
export class FaultQueue {
  private queue: Fault[] = []

  get pending(): readonly Fault[] {
    return this.queue
  }

  add(faults: Fault[]): void {
    this.queue.push(...faults)
  }

  clear(): void {
    this.queue = []
  }

  take(operationId: string): Fault | undefined {
    const i = this.queue.findIndex((f) => f.op === operationId || f.op === '*')
    return i === -1 ? undefined : this.queue.splice(i, 1)[0]
  }
}
