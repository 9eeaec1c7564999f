import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {jsonFlag} from '../../cli/flags.js'
import {hints} from '../../cli/hints.js'
import {argvWarning, onArgv, readSecretFile} from '../../cli/secret-input.js'
import {OpsError, UsageError} from '../../errors.js'
import {SECRET_ENV} from '../../http/services.js'
import {isLoopback} from '../../http/url.js'
import {removeSandboxToken, writeSandboxToken} from '../../profiles/sandbox-tokens.js'
import {redactedUrl} from '../../sandbox/core/redacted-url.js'
import {SANDBOX_KEYS, SANDBOX_PORT, sandboxBaseUrls} from '../../services/sandbox-defaults.js'

export default class SandboxStart extends BaseCommand<typeof SandboxStart> {
  /** It prints the URLs and sends nothing: no --output, --columns, --dry-run or --yes. */
  static override baseFlags = jsonFlag
  static override description = `Run the embedded sandbox: a local emulator of both services on one origin.

Health is served under /api/..., checkout under /checkout/v1/... (checkout base URL: <origin>/checkout). It keeps state (in memory, or in --state FILE, a SQLite database where every change is committed before its answer), enforces the auth and rules of both specs, serves the hosted payment page, and has a controllable clock and fault injection under /__sandbox/. The built-in "sandbox" profile points at port ${SANDBOX_PORT}. Serves until Ctrl-C (SIGINT) or SIGTERM.

These URLs are the default tenant's. "sandbox tenant create" adds isolated tenants, each with its own URLs (<origin>/t/<id>), keys, clock and data, so that jobs sharing one sandbox never see each other.

The /__sandbox/ control routes need a control token (Authorization: Bearer ...), random for each start unless ${SECRET_ENV.sandboxToken} or --token-file gives one (--token works too, but is readable by every local user in ps). It is written to <config folder>/sandboxes/<scheme>-<host>-<port>.json (mode 0600) while the sandbox runs, where opsctl on this machine finds it; elsewhere set ${SECRET_ENV.sandboxToken}. No browser can call the control routes, and every route answers only the host names the sandbox serves (loopback, the --host address, --allowed-host).

--database postgres://... (better OPSCTL_SANDBOX_DATABASE, its password in PGPASSWORD or --database-password-file) keeps the state in PostgreSQL instead: several sandboxes started with the same database and control token, on one machine or many, serve the same tenants (replicas behind a load balancer; see docs/architecture.md). Its password is never printed.

A --state file in the JSON format of earlier versions is imported once, in place: the JSON is kept beside it as FILE.v<version>.json. One sandbox at a time uses a state file. Move whole states in and out with "sandbox export" and "sandbox import".`
  static override examples = [
    '<%= config.bin %> sandbox start',
    '<%= config.bin %> sandbox start --seed --state ./sandbox.db',
    '<%= config.bin %> sandbox start --port 0 \\\n  --json    # free port; prints one JSON line with the URLs',
    '<%= config.bin %> sandbox start --clock 2026-11-21T15:00:00Z --latency 200 \\\n  --fail-rate 0.1',
    '<%= config.bin %> sandbox start --public --host 0.0.0.0 \\\n  --allowed-host sandbox.team.internal --token-file ./sandbox-token',
    'export OPSCTL_SANDBOX_DATABASE=postgres://sandbox@db.team.internal/sandbox\nexport PGPASSWORD    # set from your secret store, never on the command line\n<%= config.bin %> sandbox start --public --host 0.0.0.0 --port 4010 \\\n  --allowed-host sandbox.team.internal    # one replica of a shared sandbox',
  ]
  static override flags = {
    port: Flags.integer({
      default: SANDBOX_PORT,
      description: 'port to listen on; 0 picks a free one',
      env: 'OPSCTL_SANDBOX_PORT',
      max: 65_535,
      min: 0,
    }),
    host: Flags.string({default: '127.0.0.1', description: 'address to listen on (loopback unless --public)'}),
    public: Flags.boolean({description: 'allow a non-loopback --host (anyone who can reach it can use the test keys)'}),
    'allow-private-callbacks': Flags.boolean({
      description: "with --public: let webhooks go to loopback, private and other non-public addresses (the host's own services); link-local and metadata addresses never are",
    }),
    state: Flags.string({description: 'database file to keep the state in (created when missing)', exclusive: ['database']}),
    database: Flags.string({
      description: 'PostgreSQL URL to keep the state in, shared by every sandbox started with it (instead of --state)',
      env: 'OPSCTL_SANDBOX_DATABASE',
      exclusive: ['state'],
    }),
    'database-password-file': Flags.string({
      description: "read the database password from this file rather than the URL (PGPASSWORD works too): a URL's password on the command line is readable in ps",
      dependsOn: ['database'],
    }),
    clock: Flags.string({
      description: 'start the sandbox clock at this ISO 8601 time (it runs on from there); a --state clock that is later is kept',
    }),
    latency: Flags.integer({default: 0, description: 'milliseconds added to every service request', min: 0}),
    'fail-rate': Flags.string({default: '0', description: 'share of service requests (0..1) answered 503 with Retry-After: 1'}),
    seed: Flags.boolean({
      description: 'load demo data into a fresh state (demo users; two paid checkouts: checkout list --sandbox-seeded)',
    }),
    token: Flags.string({
      description: 'control token the /__sandbox/ routes ask for (at least 16 characters; default: a random one)',
      env: SECRET_ENV.sandboxToken,
    }),
    'token-file': Flags.string({
      description: `read the control token from this file (rather than --token, readable in ps; ${SECRET_ENV.sandboxToken} works too)`,
      exclusive: ['token'],
    }),
    'allowed-host': Flags.string({
      description: 'another host name the sandbox answers to (repeatable); loopback names and the --host address always are',
      multiple: true,
    }),
  }

  protected async execute(): Promise<void> {
    const {flags} = this
    if (!flags.public && !isLoopback(flags.host)) {
      throw new UsageError(`Refusing to listen on ${flags.host}: the sandbox accepts published test keys; pass --public to expose it`)
    }

    const failRate = Number(flags['fail-rate'])
    if (!(failRate >= 0 && failRate <= 1)) throw new UsageError(`--fail-rate must be between 0 and 1, got ${flags['fail-rate']}`)
    if (flags.clock && Number.isNaN(Date.parse(flags.clock))) throw new UsageError(`--clock must be an ISO 8601 time, got ${flags.clock}`)
    if (onArgv(this.argv, 'token')) process.stderr.write(argvWarning('--token', `${SECRET_ENV.sandboxToken} or --token-file`))
    const token = flags['token-file'] === undefined ? flags.token : await readSecretFile(flags['token-file'], '--token-file')
    if (token !== undefined && !/^[\u0021-\u007E]{16,}$/.test(token)) {
      throw new UsageError(`${flags['token-file'] === undefined ? '--token' : '--token-file'} must hold at least 16 printable characters without spaces`)
    }

    const password = flags['database-password-file'] === undefined ? undefined : await readSecretFile(flags['database-password-file'], '--database-password-file')
    const database = flags.database === undefined ? undefined : databaseUrl(flags.database, password)
    if (database && onArgv(this.argv, 'database') && new URL(flags.database!).password !== '') {
      process.stderr.write(argvWarning("--database's password", 'OPSCTL_SANDBOX_DATABASE, PGPASSWORD or --database-password-file'))
    }

    const {createSandbox} = await import('../../sandbox/core/server.js')
    let sandbox
    try {
      sandbox = await createSandbox({
        clock: flags.clock,
        database,
        failRate,
        host: flags.host,
        latencyMs: flags.latency,
        port: flags.port,
        seed: flags.seed,
        stateFile: flags.state,
        token,
        allowedHosts: flags['allowed-host'],
        refusePrivateCallbacks: flags.public && !flags['allow-private-callbacks'],
      })
    } catch (error) {
      if (error instanceof OpsError) throw error
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'EADDRINUSE')
        throw new UsageError(`Port ${flags.port} is in use; choose another with --port, or --port 0 for a free one`)
      if (code === 'EADDRNOTAVAIL') throw new UsageError(`Cannot listen on ${flags.host} on this machine`)
      throw new UsageError(`Cannot start the sandbox: ${(error as Error).message}`)
    }

    let tokenFile: string
    try {
      tokenFile = await writeSandboxToken(this.configDir, {origin: sandbox.origin, pid: process.pid, token: sandbox.token})
    } catch (error) {
      await sandbox.close()
      if (error instanceof OpsError) throw error
      throw new UsageError(
        `Cannot write the control token file in ${this.configDir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}; set OPSCTL_CONFIG_DIR to a folder you can write`,
      )
    }

    // Signal handlers go in before the origin is announced: whoever reads that line may stop us at once.
    const stopped = new Promise<void>((resolve) => {
      const stop = async (signal: string) => {
        process.stderr.write(`Sandbox stopping (${signal})\n`)
        try {
          await sandbox.close()
        } finally {
          await removeSandboxToken(this.configDir, sandbox.origin, sandbox.token)
        }

        resolve()
      }

      process.once('SIGINT', stop)
      process.once('SIGTERM', stop)
    })
    const urls = sandboxBaseUrls(sandbox.origin)
    const info = {
      origin: sandbox.origin,
      health: {baseUrl: urls.health},
      checkout: {baseUrl: urls.checkout, ...SANDBOX_KEYS},
      clock: sandbox.ctx.clock.now().toISOString(),
      state: flags.state ?? null,
      database: database ? redactedUrl(database) : null,
      controlTokenFile: tokenFile,
    }
    if (flags.public) process.stderr.write(publicWarning(sandbox.origin, tokenFile))
    if (this.jsonEnabled()) {
      process.stdout.write(JSON.stringify(info) + '\n')
    } else {
      const lines = [
        `Sandbox listening on ${sandbox.origin}`,
        `  health base URL    ${urls.health}`,
        `  checkout base URL  ${urls.checkout}`,
        `  public key         ${SANDBOX_KEYS.publicKey}`,
        `  secret key         ${SANDBOX_KEYS.secretKey}`,
        '                     (published test keys: they open only this sandbox)',
        `  clock              ${info.clock}`,
        `  state              ${database ? `PostgreSQL ${redactedUrl(database)}` : (flags.state ?? 'in memory')}`,
        `  control token      in ${tokenFile}`,
        `                     (opsctl here reads it; elsewhere set ${SECRET_ENV.sandboxToken})`,
        flags.port === SANDBOX_PORT
          ? 'The built-in "sandbox" profile points here.'
          : `Point the CLI here:\n  export OPSCTL_HEALTH_URL=${urls.health}\n  export OPSCTL_CHECKOUT_URL=${urls.checkout}`,
        ...(flags.seed ? [hints.checkoutListSeeded] : []),
        'Stop with Ctrl-C.',
      ]
      process.stdout.write(lines.join('\n') + '\n')
    }

    await stopped
  }
}

/** A PostgreSQL URL (its password is a secret from the start: sources.ts registers --database and OPSCTL_SANDBOX_DATABASE). */
function databaseUrl(text: string, password?: string): string {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new UsageError('--database must be a PostgreSQL URL: postgres://user:password@host:port/database')
  }

  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new UsageError(`--database must be a PostgreSQL URL (postgres://...), got one of ${url.protocol.replace(/:$/, '')}`)
  }

  if (password === undefined) return text
  url.password = encodeURIComponent(password)
  return url.href
}

/** What --public exposes, said once on stderr: the operator chose it, and should know what anyone on the network now reaches. */
function publicWarning(origin: string, tokenFile: string): string {
  return [
    'Warning: --public: this sandbox is meant to be reached from other machines:',
    `  ${origin}`,
    '  Anyone who can reach it can use both services (health, checkout) and the',
    '  hosted payment page, with the published test keys printed below.',
    '  Its /__sandbox/ control routes need the control token, which is in',
    `  ${tokenFile}`,
    '  Give it to those who should control this sandbox: they set',
    `  ${SECRET_ENV.sandboxToken} to it.`,
    '',
  ].join('\n')
}
