/**
 * What every health command shares: the `--language` flag, the `<userId>` argument that also
 * takes `me`, the client for the call, and storing a session after createUser / sign-in.
 */
import type {Command} from '@oclif/core/command'

import * as Flags from '@oclif/core/flags'

import type {ServiceClient} from '../../http/client.js'

import {UsageError} from '../../errors.js'
import {registerSecret} from '../../http/secrets/registry.js'
import {sessionFromHeaders} from '../../http/session-cookie.js'
import {ENV} from '../../profiles/resolve.js'
import {type ChangeClient} from '../../services/change.js'
import {Bcp47, healthOps, User} from '../../services/health/operations.js'
import {BaseCommand} from '../base-command.js'
import {writeNote} from '../error-output.js'
import {idArg} from '../input-text.js'
import {fieldsOf, type View} from '../output/view.js'
import {askSecret, isInteractive, readStdin} from '../prompt.js'
import {type AccessContext, reasonFor, recordAccess} from './access.js'
import {USER_COLUMNS} from './columns.js'
import {findByEmail} from './people.js'

export const healthFlags = {
  language: Flags.string({
    description: 'language for this call, BCP 47 (sent as accept-language; the answer says which in content-language)',
    helpValue: '<BCP 47>',
    async parse(value) {
      if (!Bcp47.safeParse(value).success) {
        throw new Error(`"${value}" is not a BCP 47 language tag such as en-US`)
      }

      return Intl.getCanonicalLocales(value)[0]
    },
  }),
}

/**
 * The user of every health command that takes one: an id, `me` for the signed-in user, or an email
 * address, looked up among the users the signed-in user may read (resolveUserId). What is sent and
 * written to the access log is always the id.
 */
export const userIdArg = idArg('user id, email address, or "me" for the signed-in user', 'user id or email')

/** An email address, not an id: ids have no `@`. */
const isEmail = (target: string) => target.includes('@')

export const USER_VIEW: View = {
  columns: USER_COLUMNS,
  // On first read: every health command loads this module, and listing the fields builds the User schema.
  get fields() {
    return fieldsOf(User)
  },
}

/** Flags of the commands that send a password. The value never appears in output, traces or errors. */
export const passwordFlags = {
  password: Flags.string({description: 'password (insecure: it lands in shell history; prefer --password-stdin)'}),
  'password-stdin': Flags.boolean({description: 'read the password from stdin', exclusive: ['password']}),
}

export abstract class HealthCommand<T extends typeof Command> extends BaseCommand<T> {
  /**
   * Times in tables and CSV read in the signed-in user's own zone (kept in the profile at sign-in,
   * from the user document): night events and metric windows are defined in it.
   */
  protected override async displayZone(): Promise<string | undefined> {
    // users login / create: the zone of the user just signed in, not the one the profile had before
    if (this.signedInZone !== undefined) return this.signedInZone
    const resolved = await this.profile().catch(() => undefined)
    return resolved?.profile.health.timeZone
  }

  private signedInZone?: string

  /** The health client for this call, with --language as accept-language. */
  protected async health(): Promise<ChangeClient> {
    return this.client('health', (this.flags as {language?: string}).language)
  }

  /**
   * The id of the user a command names: an id as it is; `me` -> the signed-in user's id (the one
   * stored at sign-in, else asked of the service: a session from OPSCTL_HEALTH_SESSION may belong to
   * someone else); an email -> the id of that user among those the signed-in user may read (a miss
   * is exit 4 saying who was searched). Under --dry-run nothing is asked: `me` and an email stay as typed.
   */
  protected async resolveUserId(target: string, client: ServiceClient): Promise<string> {
    return (await this.lookUpUser(target, client)).userId
  }

  /** What an access line of this run says of the command, and where it goes (./access.ts). */
  protected async accessContext(): Promise<AccessContext> {
    return {
      argv: this.argv,
      command: (this.id ?? '').replaceAll(':', ' '),
      configDir: this.configDir,
      dryRun: this.dryRun,
      reason: (this.flags as {reason?: string}).reason,
      resolved: await this.profile(),
    }
  }

  /**
   * The id of the user whose health data this command reads (resolveUserId). A read of another
   * user needs a reason on production profiles (settled before anything is sent) and is written to
   * the access log (./access.ts) with that user's id, never the email typed.
   */
  protected async readUserId(target: string, client: ServiceClient): Promise<string> {
    const ctx = await this.accessContext()
    const reason = await reasonFor(ctx, target)
    const found = await this.lookUpUser(target, client)
    if (target !== 'me' && !this.dryRun) {
      await recordAccess(ctx, {reason, signedInUser: found.signedInUser ?? (await this.lookUpUser('me', client)).userId, user: found.userId})
    }

    return found.userId
  }

  /** The user's id, and the signed-in user's when the lookup of an email learnt it. */
  private async lookUpUser(target: string, client: ServiceClient): Promise<{signedInUser?: string; userId: string}> {
    if (isEmail(target)) return this.dryRun ? {userId: target} : findByEmail(target, client)
    if (target !== 'me') return {userId: target}
    const r = await this.profile()
    if (r.profile.health.userId && !r.fromEnv.includes(ENV.healthSession)) return {userId: r.profile.health.userId}
    if (this.dryRun) return {userId: 'me'}
    const {data} = await client.call(healthOps.getUser)
    return {signedInUser: data.id, userId: data.id}
  }

  /** The password: --password-stdin, --password (warned), or a hidden prompt in a terminal. Registered as a secret. */
  protected async readPassword(): Promise<string> {
    const password = await this.readPasswordInput()
    registerSecret(password)
    return password
  }

  private async readPasswordInput(): Promise<string> {
    const flags = this.flags as {password?: string; 'password-stdin'?: boolean}
    if (flags['password-stdin']) {
      const text = (await readStdin()).replace(/\r?\n$/, '')
      if (!text) throw new UsageError('--password-stdin: stdin was empty')
      return text
    }

    if (flags.password !== undefined) {
      writeNote('Warning: --password lands in your shell history; prefer --password-stdin')
      return flags.password
    }

    if (!isInteractive()) throw new UsageError('Missing password; pipe it in with --password-stdin (no terminal to ask in)')
    return askSecret('Password', '--password-stdin')
  }

  /** Keeps the session (and the user id, for `me`) in the profile in use. */
  protected async storeSession(user: User, headers: Record<string, string | string[] | undefined>): Promise<void> {
    const session = sessionFromHeaders(headers)
    if (!session) throw new UsageError('The service answered without a connect.sid session cookie; nothing was stored')
    const r = await this.profile()
    r.store.update(r.name, (p) => ({...p, health: {...p.health, session, timeZone: user.timeZone, userId: user.id}}))
    await r.store.save()
    this.signedInZone = user.timeZone
    this.note(`Signed in as ${user.email} (${user.id}); session stored in profile ${r.name}`)
    if (r.fromEnv.includes(ENV.healthSession)) this.note(`Note: ${ENV.healthSession} is set and overrides the stored session`)
  }
}
