import {createServer, type Server} from 'node:http'

export interface ReceivedEvent {
  event: string
  body: Record<string, unknown>
}

/** A loopback endpoint that collects what the service delivers to it (for the webhook step). */
export class EventReceiver {
  readonly events: ReceivedEvent[] = []
  private server?: Server
  private port = 0

  get url(): string {
    return `http://127.0.0.1:${this.port}/opsctl-smoke`
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let text = ''
      req.on('data', (d) => (text += d))
      req.on('end', () => {
        try {
          this.events.push({body: JSON.parse(text), event: String(req.headers['x-checkout-event'] ?? '')})
        } catch {
          // not JSON: not an event
        }

        res.writeHead(200, {'content-type': 'application/json'}).end('{"received":true}')
      })
    })
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve))
    this.port = (this.server.address() as {port: number}).port
  }

  /** Waits until an event about `checkoutId` has arrived, or the time is up. */
  async waitFor(checkoutId: string, timeoutMs: number): Promise<ReceivedEvent | undefined> {
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline) {
      const found = this.events.find((e) => e.body.id === checkoutId || e.body.checkoutId === checkoutId)
      if (found) return found
      await new Promise((r) => setTimeout(r, 50))
    }

    return undefined
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()))
  }
}
