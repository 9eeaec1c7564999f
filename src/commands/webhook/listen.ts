import * as Flags from '@oclif/core/flags'

import type {ChangedWebhook, ReceivedEvent} from '../../runtime/checkout/webhook-receiver.js'

import {BaseCommand} from '../../cli/base-command.js'
import {CHECKOUT_ZONE, WEBHOOK_DELIVERY_COLUMNS} from '../../cli/checkout/columns.js'
import {answerCtrlCHere} from '../../cli/interrupted-attempt.js'
import {type View} from '../../cli/output/view.js'
import {OpsError, UsageError} from '../../errors.js'
import {createTransport} from '../../http/create-transport.js'
import {localSandbox, sandboxControl} from '../../runtime/sandbox-control.js'

/** In a terminal: one table row per delivery, fitted to its width (widths declared: rows come one at a time). */
const TERMINAL_VIEW: View = {
  zone: CHECKOUT_ZONE,
  columns: ['time', 'event', 'checkoutId', 'amount', 'status', 'answered'],
  fields: WEBHOOK_DELIVERY_COLUMNS,
  layout: {
    amount: {min: 14, priority: 2},
    answered: {priority: 3},
    checkoutId: {kind: 'id', min: 36, priority: 1},
    event: {kind: 'id', min: 16, priority: 1},
    forwarded: {kind: 'text', priority: 2},
    status: {min: 16, priority: 2},
    time: {priority: 1},
  },
}

/** A delivery as a terminal row: amount with its currency, both statuses, the forward in words. */
function terminalRow(e: ReceivedEvent): Record<string, unknown> {
  const forward = e.forward
  return {
    ...e,
    amount: e.amount ? `${e.amount} ${e.currency ?? ''}`.trim() : '',
    forwarded: forward ? `${forward.status ?? `failed (${forward.error ?? 'no answer'})`} ${forward.url} (${forward.durationMs} ms)` : '',
    status: [e.status, e.paymentStatus].filter(Boolean).join('/'),
  }
}

export default class WebhookListen extends BaseCommand<typeof WebhookListen> {
  static override requiresSandbox = {
    flag: 'register',
    why: '--register points webhooks at 127.0.0.1, which a production service cannot reach',
    suggestions: ['Expose a public URL and run: opsctl webhook update <webhookId> --url https://...', 'opsctl webhook listen --register --profile sandbox'],
  }
  static override undoesOwnChanges = true
  static override description = `Receive checkout webhooks on this machine and print each event as it arrives.

Listens on 127.0.0.1 (a free port unless --port) and prints one line per delivery: time, event, checkout id, amount and status (one JSON object per line with --json or -o ndjson). The event name comes from the x-checkout-event header, else from the payload's paymentStatus. Chatter, such as "Listening on http://127.0.0.1:PORT/webhooks", goes to stderr.

--forward-to URL posts each event on (same body and content-type) and prints the forward's status. The sender is answered with the forward's own status and body, and with 502 when the forward gets no answer, so the sender's retries work as if it called the app directly; the listener never retries. Without --forward-to every JSON delivery is answered 200.

--register points the CHECKOUT_SUCCESS, CHECKOUT_FAILURE and CHECKOUT_DROPOUT webhooks at the listener (updating the ones that exist, registering the others) and on Ctrl-C (SIGINT) or SIGTERM puts back exactly what was there: the previous URLs, and no webhook where there was none. Refused on a production profile: a real service cannot reach a loopback address.`
  static override examples = [
    '<%= config.bin %> webhook listen --register',
    '<%= config.bin %> webhook listen --register \\\n  --forward-to http://localhost:3000/hooks/checkout',
    '<%= config.bin %> webhook listen --port 8787 --json | jq .checkoutId',
  ]
  static override flags = {
    port: Flags.integer({default: 0, description: 'port to listen on (127.0.0.1); 0 picks a free one', max: 65_535, min: 0}),
    'forward-to': Flags.string({description: 'also POST each event to this http(s) URL and print its status'}),
    register: Flags.boolean({description: 'point the three webhooks at the listener; restore the previous ones on exit'}),
  }

  // Times as every checkout command shows them: PH Standard Time.
  static override view: View = {columns: WEBHOOK_DELIVERY_COLUMNS, zone: CHECKOUT_ZONE}

  protected override get view(): View {
    if (!this.terminalTable) return WebhookListen.view
    return this.flags?.['forward-to'] ? {...TERMINAL_VIEW, columns: [...TERMINAL_VIEW.columns!, 'forwarded']} : TERMINAL_VIEW
  }

  private get terminalTable(): boolean {
    return process.stdout.isTTY === true && this.output.format === 'table' && !this.jsonEnabled()
  }

  /**
   * On a sandbox profile, the sandbox's clock (which `sandbox clock` may have moved): a delivery's
   * time then reads like the checkout's own times. Undefined elsewhere; a read that fails keeps this machine's time.
   */
  private async sandboxClock(): Promise<(() => Promise<string | undefined>) | undefined> {
    const profile = (await this.profile().catch(() => undefined))?.profile
    if (profile?.env !== 'sandbox') return undefined
    const sandbox = await localSandbox(profile.health.baseUrl, this.configDir).catch(() => undefined)
    if (!sandbox) return undefined
    const transport = createTransport({...this.clientOptions(), dryRun: false})
    return async () => {
      const answer = await sandboxControl(transport, sandbox, 'GET', 'clock').catch(() => undefined)
      return typeof answer?.now === 'string' ? answer.now : undefined
    }
  }

  /** Runs until SIGINT/SIGTERM; returns nothing (under --json the events were the output). */
  protected async execute(): Promise<void> {
    const {flags} = this
    const forwardTo = flags['forward-to'] ? checkForwardUrl(flags['forward-to']) : undefined
    const stderr = (line: string) => process.stderr.write(line + '\n')

    if (flags.register && flags['dry-run']) {
      throw new UsageError('--dry-run cannot show --register: the changes depend on the webhooks read at start; run opsctl webhook list')
    }

    let client
    if (flags.register) {
      client = await this.client('checkout')
    }

    const {describeProblems, formatEventLine, pointWebhooksAt, restoreWebhooks, startListener} =
      await import('../../runtime/checkout/webhook-receiver.js')
    const ndjson = this.jsonEnabled() || this.output.format === 'ndjson' || this.output.format === 'json'
    const rows = (this.output.format === 'csv' && !this.jsonEnabled()) || this.terminalTable ? await this.output.listWriter<object>() : undefined
    const clock = await this.sandboxClock()
    const onEvent = async (event: ReceivedEvent) => {
      if (clock) event.time = (await clock()) ?? event.time
      if (ndjson) process.stdout.write(JSON.stringify(event) + '\n')
      else if (rows) {
        // each event is written as it arrives, not a page later
        await rows.push(this.terminalTable ? terminalRow(event) : event)
        await rows.endPage()
      }
      else process.stdout.write(formatEventLine(event) + '\n')
    }

    let listener
    try {
      listener = await startListener({port: flags.port, forwardTo, forwardTimeoutMs: flags.timeout * 1000, onEvent})
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
        throw new UsageError(`Port ${flags.port} is in use; choose another with --port, or --port 0 for a free one`)
      }

      throw error
    }

    // Signal handlers go in before anything is changed or announced: whoever reads "Listening on"
    // may stop us at once, and a stop during --register must still put the webhooks back.
    // A second signal does not cut the restore short. (the profile writer's signal-exit re-raises the first
    // signal once, at once: that echo is not worth a message.)
    let signalled: string | undefined
    let signalledAt = 0
    let onSignal: (signal: NodeJS.Signals) => void = () => {}
    const stopped = new Promise<string>((resolve) => {
      onSignal = (signal) => {
        if (signalled) {
          if (performance.now() - signalledAt > 500) stderr(`Still stopping (${signalled}); please wait while the webhooks are put back`)
          return
        }

        signalled = signal
        signalledAt = performance.now()
        resolve(signal)
      }
    })
    process.on('SIGINT', onSignal)
    process.on('SIGTERM', onSignal)
    const answeringCtrlC = answerCtrlCHere()

    try {
      let changes: ChangedWebhook[] = []
      if (client) {
        changes = await pointWebhooksAt(client, listener.url, (c) =>
          stderr(
            c.action === 'updated'
              ? `${c.name}: webhook ${c.id} now points here (was ${c.previousUrl})`
              : `${c.name}: registered webhook ${c.id} pointing here`,
          ),
        )
      }

      if (!signalled) {
        stderr(`Listening on ${listener.url}${forwardTo ? ` (forwarding to ${forwardTo})` : ''}`)
        stderr(changes.length > 0 ? 'Stop with Ctrl-C: the previous webhooks are then put back.' : 'Stop with Ctrl-C.')
      }

      const signal = await stopped
      stderr(`Stopping (${signal})`)
      if (client && changes.length > 0) {
        const problems = await restoreWebhooks(client, changes)
        if (problems.length > 0) {
          throw new OpsError(describeProblems(problems), problems[0].error.exitCode).withNext(...problems.map((p) => p.fix))
        }

        stderr(`Put back ${changes.length} webhook(s) as they were`)
      }
    } finally {
      await listener.close()
      // A terminal that saw no delivery shows no empty table at the stop.
      if (!this.terminalTable) await rows?.end()
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
      answeringCtrlC()
    }
  }
}

function checkForwardUrl(value: string): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new UsageError(`--forward-to must be an http(s) URL, got ${value}`)
  }

  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--forward-to must be an http(s) URL, got ${value}`)
  return url.href
}
