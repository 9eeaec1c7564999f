import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'

import type {PagedRequest} from '../cli/api-paginate.js'
import type {RawResponse, ServiceClient} from '../http/client.js'
import type {AuthKind, HttpMethod, Operation, Paging} from '../http/operation.js'

import {amountHint, bodyOf, type Field, queryOf, readFields} from '../cli/api-fields.js'
import {responseHead} from '../cli/api-head.js'
import {BaseCommand} from '../cli/base-command.js'
import {parsePairs, readJsonData} from '../cli/data-input.js'
import {reasonFlags} from '../cli/health/reason-flag.js'
import {ApiError, MIB, UsageError} from '../errors.js'
import {serviceModule} from '../http/services.js'
import {OPERATION_INDEX} from '../services/operation-index.js'

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const
/** Pages --paginate reads at most unless --max-pages says otherwise: 50,000 events at the health service's 50 a page. */
const MAX_PAGES = 1000

export default class Api extends BaseCommand<typeof Api> {
  static override args = {
    service: Args.string({description: 'which service', options: ['health', 'checkout'], required: true}),
    method: Args.string({description: 'HTTP method', required: true}),
    path: Args.string({description: 'path relative to the service base URL, e.g. /api/users/me or /v1/webhooks', required: true}),
  }
  static override defaultFormat = 'json' as const
  static override description = `Send a raw request with the profile's auth, for anything the other commands do not cover.

Health requests carry the session cookie (when the profile has one) and x-ph-api-version. Checkout requests carry the secret key, or the public key for POST /v1/checkouts; --key overrides. Only GET requests are retried. The request stays under the profile's base URL: a path with . or .. segments (also percent-encoded or with backslashes) is refused, and nothing is sent.

The body is JSON, from one of: --data (inline, @file or -), --input FILE (or - for stdin), or fields. -f key=value adds a string; -F key=value adds true, false, null or an integer as JSON (1.00 stays the string "1.00"), the text of a file with @path, of stdin with @-, else a string. A key nests with [name] and makes a list with [] (-f 'totalAmount[value]=1.00', -f 'symptoms[]=cough', -f 'items[][name]=Tea': a name already set in the list's last object starts the next one). On a GET the fields are query parameters instead (k[]=v or a repeated key repeats the parameter), like --param.

--paginate follows a paged list (an operation below with a paging token; today GET /api/users/{userId}/events) from the page the query names to the last, at most --max-pages pages, and prints one document: the last page's answer with its list holding the items of every page (events: [...all]); its paging.next is set only when --max-pages stopped it, the token to continue from (said on stderr too). The one document is held whole before it is printed: past --max-body (16 MiB unless raised) the run stops with exit 6. With -o ndjson each page's answer is one line, printed as it arrives, and only one page is held at a time, whatever the total. Any other path with --paginate is refused, and nothing is sent; a page token the service gives twice stops the run (exit 6).

-i prints the status line and the headers (every header that carries a credential or a challenge for one masked: authorization, proxy-authorization, cookie, set-cookie, x-api-key, www-authenticate, proxy-authenticate, any header named like a secret, and any known secret in the others) before the body; --silent prints no body. Bodies are shown as received, JSON or not. An answer that is not a 2xx prints its body all the same, as it is (--query asks about the answer, not about an error), and the error on stderr, and the exit code is that of its status (3 for 401/403, 4 for 404/410, 5 for another 4xx, 6 for a 5xx); a redirect is never followed: it is exit 6, naming where it points. A 2xx body that is not JSON is exit 6 too, unless -H 'accept: ...' asked for something other than JSON.

The operations of both services (the ids the other commands' errors and audit lines name):

${OPERATION_INDEX}`
  static override examples = [
    '<%= config.bin %> api health GET /api/users/me',
    '<%= config.bin %> api checkout GET /v1/webhooks',
    '<%= config.bin %> api checkout POST /v1/checkouts --data @examples/checkout.json',
    '<%= config.bin %> api health GET /api/users/me/events \\\n  --param startDate=2026-01-01T00:00:00Z --param symptoms=cough',
    '<%= config.bin %> api health GET /api/users/me/events --paginate -f symptoms=cough',
    '<%= config.bin %> api health GET /api/users/me/events --paginate -o ndjson',
    '<%= config.bin %> api checkout POST /v1/webhooks -f name=CHECKOUT_SUCCESS \\\n  -f callbackUrl=https://example.com/hook',
    '<%= config.bin %> api checkout POST /v1/checkouts -f requestReferenceNumber=r-1 \\\n  -f \'totalAmount[value]=1.00\' -f \'totalAmount[currency]=PHP\'',
    '<%= config.bin %> api checkout PUT /v1/webhooks/WEBHOOK_ID --input hook.json',
    '<%= config.bin %> api checkout GET /v1/checkouts/CHECKOUT_ID -i',
  ]
  static override flags = {
    data: Flags.string({char: 'd', description: 'JSON body: inline, @file.json, or - for stdin'}),
    input: Flags.string({description: 'JSON body from a file, or - for stdin'}),
    'raw-field': Flags.string({char: 'f', description: 'body field key=value, a string; query parameter on a GET (repeatable)', multiple: true, multipleNonGreedy: true}),
    field: Flags.string({char: 'F', description: 'body field key=value: true, false, null, an integer, @file, @- (stdin), else a string (repeatable)', multiple: true, multipleNonGreedy: true}),
    paginate: Flags.boolean({description: 'follow a paged list to its last page: one document, or one page a line with -o ndjson'}),
    'max-pages': Flags.integer({dependsOn: ['paginate'], description: `with --paginate, stop after this many pages (default ${MAX_PAGES})`, min: 1}),
    include: Flags.boolean({char: 'i', description: 'print the status line and headers before the body'}),
    silent: Flags.boolean({description: 'print no body (the exit code still tells)'}),
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

    const given = this.flagsInOrder.filter((t) => t.flag === 'raw-field' || t.flag === 'field').map((t) => ({pair: t.input, typed: t.flag === 'field'}))
    this.checkInputs(given, method === 'GET')
    const fields = await readFields(given)
    const body = await this.body(fields, method !== 'GET')
    const headers = Object.fromEntries(
      Object.entries(parsePairs(flags.header, '--header', ':')).map(([k, v]) => [k.toLowerCase(), String(v)]),
    )
    const query = joinedQuery(parsePairs(flags.param, '--param'), method === 'GET' ? queryOf(fields) : {})
    const service = args.service as 'checkout' | 'health'
    const paged = flags.paginate ? await import('../cli/api-paginate.js') : undefined
    const row = paged ? paged.pagedRow(service, await serviceModule(service).operations(), method, args.path) : undefined
    const client = await this.client(service)
    const auth = this.authFor(service, method, args.path, Boolean(client.target.session))
    if (service === 'health' && method === 'GET') await this.recordRead(args.path, client)
    if (row) {
      // The token goes in the query with each page: the path's own query joins the rest.
      const [path, search = ''] = args.path.split(/\?(.*)/s, 2)
      return this.paginated(client, row, {auth, headers, path, query: joinedQuery(pairsOf(search), query)})
    }

    return this.answer(await client.raw(method, args.path, {answerErrors: true, auth, body, headers, query}), fields)
  }

  /**
   * What gives the body, checked before anything is read: one of --data, --input and the fields
   * (the query on a GET), and stdin read by one of them at most.
   */
  private checkInputs(fields: {pair: string; typed: boolean}[], fieldsInQuery: boolean): void {
    const {data, input} = this.flags
    const bodies = [data !== undefined && '--data', input !== undefined && '--input', !fieldsInQuery && fields.length > 0 && '-f/-F'].filter(Boolean)
    if (bodies.length > 1) throw new UsageError(`${bodies.join(' and ')} each give the request body; use one of them`)
    const stdin = [data === '-' && '--data -', input === '-' && '--input -', fields.some((f) => f.typed && f.pair.slice(f.pair.indexOf('=') + 1) === '@-') && '-F key=@-'].filter(Boolean)
    if (stdin.length > 1) throw new UsageError(`${stdin.join(' and ')} both read stdin; give one of them a file`)
  }

  /** The body from --data, --input or the fields (not on a GET, whose fields are its query). */
  private async body(fields: Field[], fieldsInBody: boolean): Promise<unknown> {
    const {data, input} = this.flags
    if (input !== undefined) return readJsonData(input === '-' ? '-' : `@${input}`)
    if (data !== undefined) return readJsonData(data)
    return fieldsInBody && fields.length > 0 ? bodyOf(fields) : undefined
  }

  /** One answer: -i's head, then the body (unless --silent); an error answer's body too, then the error. */
  private async answer(response: RawResponse, fields: Field[] = []): Promise<unknown> {
    if (this.flags.include) process.stdout.write(responseHead(response.status, response.headers))
    if (response.error) {
      const hint = response.error instanceof ApiError && response.error.status === 400 ? amountHint(fields, response.error.fieldErrors) : undefined
      if (hint) response.error.suggestions.unshift(hint)
      return this.failWith(response.error, response.data)
    }

    return this.flags.silent ? undefined : (response.data ?? {status: response.status})
  }

  /** An error answer: its body as it is (unless --silent; --query is for the answer asked for), then the error, which has the exit code of its status. */
  private async failWith(error: Error, body: unknown): Promise<never> {
    if (!this.flags.silent && body !== undefined) await this.output.print(body, {query: false})
    throw error
  }

  private async paginated(client: ServiceClient, row: Operation & {paging: Paging}, request: PagedRequest): Promise<unknown> {
    const {mergedPages, readPages} = await import('../cli/api-paginate.js')
    const {flags} = this
    const maxPages = flags['max-pages'] ?? MAX_PAGES
    const ndjson = this.output.format === 'ndjson'
    const query = flags.query === undefined ? undefined : (await import('../cli/output/query.js')).applyQuery
    const read = await readPages(client, row, request, {
      collect: !ndjson && !flags.silent,
      maxCollectBytes: flags['max-body'] * MIB,
      maxPages,
      async onPage(response) {
        if (flags.include) process.stdout.write(responseHead(response.status, response.headers))
        if (!ndjson || flags.silent || response.error) return
        const page = query ? await query(response.data, flags.query as string) : response.data
        process.stdout.write(JSON.stringify(page ?? null) + '\n')
      },
    })
    if (read.stoppedAt) {
      this.note(`Stopped after ${maxPages} ${maxPages === 1 ? 'page' : 'pages'} (--max-pages); to go on from there: --param ${row.paging.token}=${read.stoppedAt}`)
    }

    if (read.last.error) return this.failWith(read.last.error, read.last.data)
    return flags.silent || ndjson ? undefined : mergedPages(row, read)
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


/** Queries (--param, a GET's fields, a path's own) as one: a key in several keeps the values of each; a key with one value has it as a string. */
function joinedQuery(...queries: Record<string, string | string[]>[]): Record<string, string | string[]> {
  const lists: Record<string, string[]> = Object.create(null)
  for (const [key, value] of queries.flatMap((q) => Object.entries(q))) lists[key] = [...(lists[key] ?? []), value].flat()
  const query: Record<string, string | string[]> = Object.create(null)
  for (const [key, values] of Object.entries(lists)) query[key] = values.length === 1 ? values[0] : values
  return query
}

/** A query string's pairs, a repeated key as a list. */
function pairsOf(search: string): Record<string, string[]> {
  const pairs: Record<string, string[]> = Object.create(null)
  for (const [key, value] of new URLSearchParams(search)) pairs[key] = [...(pairs[key] ?? []), value]
  return pairs
}
