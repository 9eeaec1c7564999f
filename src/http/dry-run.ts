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

  /** The variables the curl reads (`$OPSCTL_CHECKOUT_SECRET_KEY`, the login password's): to export before running it. */
  get variables(): string[] {
    return [...new Set(this.curl.match(/\$OPSCTL_[A-Z_]+/g) ?? [])].map((v) => v.slice(1))
  }
}

/** A secret of a JSON body in the curl: a reference to a variable, spliced out of the single-quoted --data. */
const ENV_MARK = '__opsctl_env_reference__'

/**
 * `--dry-run`: records the request, shows it as curl (secrets as `$OPSCTL_*` references, or
 * `[REDACTED]` in a form), and stops the command by throwing a DryRunRequest. Nothing is sent, and the
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
  const curl = toCurl(req.method, req.url.href, redactHeaders(prepared.plainHeaders), req.auth?.curlArgs ?? [], curlBody).replaceAll(
    new RegExp(`"${ENV_MARK}(\\w+)"`, 'g'),
    `"'"$$$1"'"`,
  )
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

  // A secret of a JSON body (a password) is read from a variable named after its field, like the keys: `"password":"'"$OPSCTL_` + `PASSWORD"'"`.
  // These variables are the curl's, never read by opsctl (so not in `help environment`).
  return typeof shown === 'string' ? shown : JSON.stringify(shown, (key, value) => (value === '[REDACTED]' && key ? `${ENV_MARK}${envName(key)}` : value))
}

/** The variable of a field: `OPSCTL_` and the field in upper snake case (`newPassword` -> `NEW_PASSWORD`). */
function envName(field: string): string {
  return `OPSCTL_${field.replaceAll(/([a-z\d])([A-Z])/g, '$1_$2').replaceAll(/\W/g, '_').toUpperCase()}`
}
