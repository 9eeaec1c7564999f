import {type ReceivedEvent, type RunningListener, startListener} from '../checkout/webhook-receiver.js'

/** The webhook listener of `opsctl webhook listen`, collecting what arrives for the webhook step. */
export class EventReceiver {
  readonly events: ReceivedEvent[] = []
  private listener?: RunningListener

  get url(): string {
    if (!this.listener) throw new Error('the receiver is not started')
    return this.listener.url
  }

  async start(): Promise<void> {
    this.listener = await startListener({
      onEvent: (event) => {
        this.events.push(event)
      },
      port: 0,
    })
  }

  /** Waits until an event about `checkoutId` has arrived, or the time is up. */
  async waitFor(checkoutId: string, timeoutMs: number): Promise<ReceivedEvent | undefined> {
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline) {
      const found = this.events.find((e) => e.checkoutId === checkoutId)
      if (found) return found
      await new Promise((r) => setTimeout(r, 50))
    }

    return undefined
  }

  async stop(): Promise<void> {
    await this.listener?.close()
  }
}
