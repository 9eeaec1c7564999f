/**
 * `profile check`: one cheap authenticated read per credential a profile holds, changing nothing,
 * each reported as ok, bad credentials, unreachable or not configured. The public checkout key is
 * taken only by checkout creation (a change), so it is reported, not tried.
 */
import type {ServiceClient} from '../http/client.js'

import {ApiError, ExitCode, NetworkError} from '../errors.js'
import {checkoutOps} from '../services/checkout/operations.js'
import {healthOps} from '../services/health/operations.js'

export type CheckStatus = 'bad credentials' | 'error' | 'not checked' | 'not configured' | 'ok' | 'unreachable'

export interface CredentialCheck {
  service: 'checkout' | 'health'
  credential: 'public key' | 'secret key' | 'session'
  status: CheckStatus
  detail: string
}

export interface ProfileCredentials {
  session?: string
  publicKey?: string
  secretKey?: string
}

export async function checkCredentials(
  credentials: ProfileCredentials,
  clients: {health(): Promise<ServiceClient>; checkout(): Promise<ServiceClient>},
): Promise<CredentialCheck[]> {
  const session: Promise<CredentialCheck> = credentials.session
    ? attempt('health', 'session', async () => {
        const {data} = await (await clients.health()).call(healthOps.getUser)
        return `signed in as user ${data.id ?? '(no id)'}`
      })
    : Promise.resolve({credential: 'session', detail: 'not signed in', service: 'health', status: 'not configured'})
  const secret: Promise<CredentialCheck> = credentials.secretKey
    ? attempt('checkout', 'secret key', async () => {
        await (await clients.checkout()).call(checkoutOps.listWebhooks)
        return 'listed the webhooks'
      })
    : Promise.resolve({credential: 'secret key', detail: 'no secret key', service: 'checkout', status: 'not configured'})
  const publicKey: CredentialCheck = {
    credential: 'public key',
    detail: credentials.publicKey ? 'only checkout creation takes it (a change), so it is not tried' : 'no public key',
    service: 'checkout',
    status: credentials.publicKey ? 'not checked' : 'not configured',
  }
  return [await session, await secret, publicKey]
}

/** Exit 3 when a credential is refused or missing, else 7 when a service cannot be reached, else 0 (1 for anything else). */
export function checkExitCode(checks: readonly CredentialCheck[]): ExitCode {
  const statuses = new Set(checks.filter((c) => c.credential !== 'public key').map((c) => c.status))
  if (statuses.has('bad credentials') || statuses.has('not configured')) return ExitCode.Auth
  if (statuses.has('unreachable')) return ExitCode.Network
  if (statuses.has('error')) return ExitCode.Unexpected
  return ExitCode.Ok
}

async function attempt(
  service: CredentialCheck['service'],
  credential: CredentialCheck['credential'],
  read: () => Promise<string>,
): Promise<CredentialCheck> {
  try {
    return {credential, detail: await read(), service, status: 'ok'}
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
      return {credential, detail: `refused: HTTP ${error.status}${error.code ? ` ${error.code}` : ''}`, service, status: 'bad credentials'}
    }

    if (error instanceof NetworkError) return {credential, detail: error.message, service, status: 'unreachable'}
    return {credential, detail: (error as Error).message, service, status: 'error'}
  }
}
