import {Args, Flags} from '@oclif/core'

import type {ServiceClient} from '../http/client.js'
import type {AuthKind, HttpMethod} from '../http/operation.js'

import {BaseCommand} from '../cli/base-command.js'
import {parsePairs, readJsonData} from '../cli/data-input.js'
import {reasonFlags} from '../cli/health/reason-flag.js'
import {UsageError} from '../errors.js'
import {OPERATION_INDEX} from '../services/operation-index.js'

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const

export default class Api extends BaseCommand<typeof Api> {
  static override args = {
    service: Args.string({description: 'which service', options: ['health', 'checkout'], required: true}),
    method: Args.string({description: 'HTTP method', required: true}),
    path: Args.string({description: 'path relative to the service base URL, e.g. /api/users/me or /v1/webhooks', required: true}),
  }
  static override defaultFormat = 'json' as const
  static override description = `Send a raw request with the profile's auth, for anything the other commands do not cover.

Health requests carry the session cookie (when the profile has one) and x-ph-api-version. Checkout requests carry the secret key, or the public key for POST /v1/checkouts; --key overrides. Only GET requests are retried. The request stays under the profile's base URL: a path with . or .. segments (also percent-encoded or with backslashes) is refused, and nothing is sent.

The operations of both services (the ids the other commands' errors and audit lines name):

${OPERATION_INDEX}`
  static override examples = [
    '<%= config.bin %> api health GET /api/users/me',
    '<%= config.bin %> api checkout GET /v1/webhooks',
    '<%= config.bin %> api checkout POST /v1/checkouts --data @examples/checkout.json',
    '<%= config.bin %> api health GET /api/users/me/events \\\n  --param startDate=2026-01-01T00:00:00Z --param symptoms=cough',
  ]
  static override flags = {
    data: Flags.string({char: 'd', description: 'JSON body: inline, @file.json, or - for stdin'}),
    param: Flags.string({char: 'P', description: 'query parameter k=v (repeatable)', multiple: true, multipleNonGreedy: true}),
    header: Flags.string({char: 'H', description: 'extra header "name: value" (repeatable)', multiple: true, multipleNonGreedy: true}),
    key: Flags.option({description: 'checkout key to use (default by path)', options: ['public', 'secret'] as const})(),
    'no-auth': Flags.boolean({description: 'send no credential'}),
    ...reasonFlags,
  }

  protected async execute(): Promise<unknown> {
    const {args, flags} = this
    const method = args.method.toUpperCase() as HttpMethod
    if (!(METHODS as readonly string[]).includes(method))
      throw new UsageError(`Unsupported method ${args.method}; use one of ${METHODS.join(', ')}`)
    if (!args.path.startsWith('/')) throw new UsageError(`The path must start with "/", got ${args.path}`)

    const body = flags.data === undefined ? undefined : await readJsonData(flags.data)
    const headers = Object.fromEntries(
      Object.entries(parsePairs(flags.header, '--header', ':')).map(([k, v]) => [k.toLowerCase(), String(v)]),
    )
    const query = parsePairs(flags.param, '--param')
    const service = args.service as 'checkout' | 'health'
    const client = await this.client(service)
    const auth = this.authFor(service, method, args.path, Boolean(client.target.session))
    if (service === 'health' && method === 'GET') await this.recordRead(args.path, client)
    const response = await client.raw(method, args.path, {auth, body, headers, query})
    const result = response.data ?? {status: response.status}
    return result
  }

  /** A GET of another user's health data (user, events, metrics) needs what `users get` and the others need: a reason on production, an access line. */
  private async recordRead(path: string, client: ServiceClient): Promise<void> {
    // Loaded only for health GETs: the rest of api stays light at start-up.
    const [{healthReadOf, reasonFor, recordAccess, storedUserId}, {healthOps}] = await Promise.all([
      import('../cli/health/access.js'),
      import('../services/health/operations.js'),
    ])
    const read = healthReadOf(path)
    if (!read || read.userId === 'me') return
    const ctx = {command: `api health GET ${read.template}`, configDir: this.configDir, dryRun: this.dryRun, reason: this.flags.reason, resolved: await this.profile()}
    const reason = await reasonFor(ctx, read.userId, `api health GET ${path}`)
    if (this.dryRun) return
    const signedInUser = storedUserId(ctx.resolved) ?? (await client.call(healthOps.getUser)).data.id
    await recordAccess(ctx, {reason, signedInUser, user: read.userId})
  }

  private authFor(service: 'checkout' | 'health', method: HttpMethod, path: string, hasSession: boolean): AuthKind {
    if (this.flags['no-auth']) return 'none'
    if (service === 'health') return hasSession ? 'session' : 'none'
    if (this.flags.key) return this.flags.key
    return method === 'POST' && /^\/v1\/checkouts\/?$/.test(path) ? 'public' : 'secret'
  }
}
