/**
 * The checkout service as the HTTP layer reaches it: HTTP Basic with the public or the secret API
 * key as user name, the request id in `x-request-id` (and `reference` in error bodies), field
 * problems under `parameters: [{field, description}]`, and the codes that are business-rule
 * refusals (exit 5). Registered by src/services/registry.ts.
 */
import {CredentialsError} from '../../errors.js'
import {basicAuth, type ServiceModule} from '../../http/services.js'
import {CODES} from './codes.js'

/** The keys a dry run's curl line refers to instead of printing them. */
export const CHECKOUT_KEY_ENV = {public: 'OPSCTL_CHECKOUT_PUBLIC_KEY', secret: 'OPSCTL_CHECKOUT_SECRET_KEY'} as const

/** Error codes that mean "a business rule refused this": exit 5, not 2. */
export const REFUSAL_CODES: ReadonlySet<string> = new Set([
  CODES.notVoidable,
  CODES.amountOver,
  CODES.refundBeforeCutoff,
  CODES.voidAfterCutoff,
  CODES.refundExists,
  CODES.webhookExists,
])

export const checkoutClientModule: ServiceModule = {
  name: 'checkout',
  auth(target, kind) {
    const headers: Record<string, string> = {}
    if (kind !== 'public' && kind !== 'secret') return {headers, secrets: []}
    const key = kind === 'public' ? target.publicKey : target.secretKey
    if (!key) {
      throw new CredentialsError(`No checkout ${kind} key in profile ${target.profileName ?? ''}`.trim(), [`Or set ${CHECKOUT_KEY_ENV[kind]}`]).withNext({
        step: 'profile-add',
        flag: kind === 'public' ? 'public-key' : 'secret-key',
      })
    }

    headers.authorization = basicAuth(key)
    return {headers, secrets: [key]}
  },
  curlAuth: (_target, kind) => (kind === 'public' || kind === 'secret' ? [`-u "$${CHECKOUT_KEY_ENV[kind]}:"`] : []),
  secretEnv: Object.values(CHECKOUT_KEY_ENV),
  requestIdHeader: 'x-request-id',
  errorFields: (body) => ({
    fieldErrors: Array.isArray(body.parameters)
      ? (body.parameters as Record<string, unknown>[]).map((p) => ({
          field: String(p?.field ?? '?'),
          description: String(p?.description ?? p?.message ?? 'invalid'),
        }))
      : undefined,
  }),
  refusalCodes: REFUSAL_CODES,
  operations: async () => (await import('./operations.js')).checkoutService.list,
}
