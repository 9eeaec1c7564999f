import type {InboundResponse, OutboundRequest, Transport} from './transport.js'

import {toCurl} from './curl.js'
import {prepareRequest, shownBody} from './prepare.js'
import {redactHeaders} from './redact.js'

/** What a dry run shows of one request: method, URL, headers and body with every secret masked. */
export interface ShownRequest {
  method: string
  url: string
  headers: Record<string, string>
  body?: unknown
}

/** Stops a command at the first request it would send; BaseCommand prints it and exits 0. */
export class DryRunRequest {
  constructor(
    readonly curl: string,
    readonly request: ShownRequest,
  ) {}
}

/**
 * `--dry-run`: records the request, shows it as curl (secrets as `$OPSCTL_*` references or
 * `[REDACTED]`), and stops the command by throwing a DryRunRequest. Nothing is sent, and the
 * checks that come before sending (input validation, credentials over plain http) still apply.
 */
export class DryRunTransport implements Transport {
  readonly kind = 'dry-run'
  readonly recorded: DryRunRequest[] = []

  async send(req: OutboundRequest): Promise<InboundResponse> {
    const shown = describeRequest(req)
    this.recorded.push(shown)
    throw shown
  }
}

export function describeRequest(req: OutboundRequest): DryRunRequest {
  const prepared = prepareRequest(req)
  const body = shownBody(req.body)
  const curlBody = body === undefined ? undefined : curlData(req, body)
  const curl = toCurl(req.method, req.url.href, redactHeaders(prepared.plainHeaders), req.auth?.curlArgs ?? [], curlBody)
  return new DryRunRequest(curl, {
    method: req.method,
    url: req.url.href,
    headers: redactHeaders(prepared.headers),
    ...(body === undefined ? {} : {body}),
  })
}

function curlData(req: OutboundRequest, shown: unknown): string {
  if (req.body && 'form' in req.body) {
    return Object.entries(shown as Record<string, string>)
      .map(([k, v]) => `${encodeURIComponent(k)}=${v === '[REDACTED]' ? v : encodeURIComponent(v)}`)
      .join('&')
  }

  return typeof shown === 'string' ? shown : JSON.stringify(shown)
}
