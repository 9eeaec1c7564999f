import type {Transport} from '../http/transport.js'

import {NetworkError, UsageError} from '../errors.js'
import {rawAnswerProblem} from '../http/answer.js'
import {apiErrorFrom} from '../http/api-error.js'
import {parseJson} from '../http/json.js'
import {registerSecret} from '../http/secrets/registry.js'
import {type AuthParts, SECRET_ENV} from '../http/services.js'
import {isLoopback} from '../http/url.js'
import {ENV} from '../profiles/resolve.js'
import {readSandboxToken} from '../profiles/sandbox-tokens.js'
import {SANDBOX_ORIGIN, SANDBOX_STATE_LIMIT_BYTES, sandboxTenantOf} from '../services/sandbox-defaults.js'

/** A running sandbox's control plane: its origin and the token its `/__sandbox/...` routes ask for. */
export interface SandboxControlTarget {
  origin: string
  /** the tenant whose control routes (`/t/<id>/__sandbox/...`) are called; none: the default tenant's (`/__sandbox/...`) */
  tenant?: string
  /** undefined when none was found: the sandbox then answers 401, which says where to find it */
  token?: string
}

/** The sandbox origin behind a profile's health base URL. Control calls go only to loopback. */
export function sandboxOrigin(healthBaseUrl: string): string {
  const url = new URL(healthBaseUrl)
  if (!isLoopback(url.hostname)) throw new UsageError(`${url.origin} is not a local sandbox; sandbox commands need a sandbox profile`)
  return url.origin
}

/** Names the one origin OPSCTL_SANDBOX_TOKEN is for, when it is not the one OPSCTL_HEALTH_URL or the default sandbox has. */
export const SANDBOX_URL_ENV = 'OPSCTL_SANDBOX_URL'

/**
 * The origin OPSCTL_SANDBOX_TOKEN is given for, named in the same environment: OPSCTL_SANDBOX_URL,
 * else the origin of OPSCTL_HEALTH_URL (the sandbox the environment points the CLI at, as a CI job
 * does), else the default sandbox's (http://127.0.0.1:4010). Never an address a profile names: any
 * process can listen on a loopback port, and a profile is only a file.
 */
export function sandboxTokenOrigin(env: NodeJS.ProcessEnv = process.env): string | undefined {
  try {
    return new URL(env[SANDBOX_URL_ENV] || env[ENV.healthUrl] || SANDBOX_ORIGIN).origin
  } catch {
    return undefined
  }
}

/**
 * The sandbox behind a profile and its control token: OPSCTL_SANDBOX_TOKEN when this is the
 * origin it is for (sandboxTokenOrigin; a shared sandbox's operator hands it out), else the file
 * `sandbox start` wrote on this machine for this origin. A base URL under `/t/<id>` names a
 * tenant: control calls then act on that tenant alone.
 */
export async function localSandbox(healthBaseUrl: string, configDir: string): Promise<SandboxControlTarget> {
  const origin = sandboxOrigin(healthBaseUrl)
  const given = origin === sandboxTokenOrigin() ? process.env[SECRET_ENV.sandboxToken] : undefined
  const token = given || (await readSandboxToken(configDir, origin))
  registerSecret(token)
  const tenant = sandboxTenantOf(healthBaseUrl)
  return tenant ? {origin, tenant, token} : {origin, token}
}

/** Calls a `/__sandbox/...` control endpoint of a running sandbox, through the command's transport (a dry run sends nothing). */
export async function sandboxControl(
  transport: Transport,
  sandbox: SandboxControlTarget,
  method: 'DELETE' | 'GET' | 'POST' | 'PUT',
  path: string,
  body?: unknown,
  /** a JSON body as it is, sent without being parsed and serialised again (a whole state file) */
  rawJson?: Buffer,
): Promise<any> {
  const {origin} = sandbox
  const name = path.replace(/^\//, '')
  const label = `sandbox ${name}`
  let res
  try {
    res = await transport.send({
      method,
      url: new URL(`${sandbox.tenant ? `/t/${sandbox.tenant}` : ''}/__sandbox/${name}`, origin),
      label,
      auth: controlAuth(sandbox.token),
      // Setting or advancing the clock twice is not the same as once; a PUT (a whole state) is not retried either: it can be large.
      idempotent: method === 'GET',
      // A whole state (sandbox export) may be as large as a sandbox imports.
      ...(name === 'state' ? {maxBodyBytes: SANDBOX_STATE_LIMIT_BYTES} : {}),
      ...(rawJson ? {body: {contentType: 'application/json', raw: rawJson}} : body === undefined ? {} : {body: {json: body}}),
    })
  } catch (error) {
    if (!(error instanceof NetworkError)) throw error
    throw new NetworkError(`No sandbox answering at ${origin} (${error.message})`, error.cause, error.outcomeUnknown).withNext({
      port: Number(new URL(origin).port || 80),
      step: 'sandbox-start',
    })
  }

  // A 401/403 here is about the control token, not the profile's keys.
  if (res.status >= 400) throw apiErrorFrom(res, {authStep: {step: 'sandbox-token'}, operationId: label, service: 'sandbox'})
  // A redirect (never followed) or a body that is not JSON is not a sandbox's answer: exit 6, nothing taken from it.
  const unreadable = rawAnswerProblem(label, method, res)
  if (unreadable) throw unreadable
  return parseJson(res.text)
}

/** The token as a Bearer credential: redacted in traces, `$OPSCTL_SANDBOX_TOKEN` in a dry run's curl. */
function controlAuth(token: string | undefined): AuthParts {
  return {
    curlArgs: [`-H "authorization: Bearer $${SECRET_ENV.sandboxToken}"`],
    headers: token ? {authorization: `Bearer ${token}`} : {},
    secrets: token ? [token] : [],
  }
}
