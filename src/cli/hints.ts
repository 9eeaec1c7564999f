import type {OperationId} from '../services/operation-ids.js'

/**
 * The only place with "opsctl ..." next-step text. Rules, the money path, the runtime and the HTTP layer
 * report facts (rule codes, `NextStep`s with their values); the CLI words them here as the
 * "Try this:" lines under an error, when BaseCommand catches it.
 */
import {ApiError, type NextStep, OpsError, RuleError} from '../errors.js'
import {CODES} from '../services/checkout/codes.js'
import {SANDBOX_PORT} from '../services/sandbox-defaults.js'

export const hints = {
  help: (commandId: string | undefined) => ['Read the help: opsctl', commandId?.replaceAll(':', ' '), '--help'].filter(Boolean).join(' '),
  /** `opsctl help <subject>`, as did-you-mean after `help <typo>` offers it */
  helpOn: (subject: string | undefined) => ['Read the help: opsctl help', subject].filter(Boolean).join(' '),
  profileList: 'See the profiles: opsctl profile list',
  checkoutCreate: 'Create one: opsctl checkout create --amount 150.00',
  checkoutListSeeded: "A sandbox's seeded paid checkouts: opsctl checkout list --sandbox-seeded",
  sandboxSeed: 'Start a sandbox with demo data: opsctl sandbox start --seed',
  tenantSeed: 'Create a tenant with demo data: opsctl sandbox tenant create --seed --save-profile NAME',
  /** `line`: the command and its arguments as typed, e.g. `users inspect 65f1...`. */
  readReason: (line: string) => `Say why (kept in the access log): opsctl ${line} --reason "ticket 4512: missed doses"`,
  linkedPatients: 'See the users you may read: opsctl users me',
  checkoutListLocal: "The list as this machine's log tells it, nothing sent: opsctl checkout list --no-refresh",
  webhookDeliveries: () => 'opsctl webhook deliveries',
  includeRuns: (profile: string) => `See them: opsctl checkout list -p ${shellQuote(profile)} --include-runs`,
  tenantGone:
    'The tenant was deleted, or its --ttl ran out (real time, whatever its clock said) and the sandbox removed it with its data: make another: opsctl sandbox tenant create --ttl 2h --save-profile NAME',
}

/** What the CLI knows of the run that the facts do not carry: the profile it used, when not the active one. */
export interface HintContext {
  /** named so that the command line acts on the same profile (`-p staging`); unset for the active profile */
  profile?: string
}

/** A next step as a command line to run. */
export function nextStepText(next: NextStep, context: HintContext = {}): string {
  const onProfile = context.profile ? ` -p ${shellQuote(context.profile)}` : ''
  switch (next.step) {
    case 'checkout-get': {
      return `opsctl checkout get ${next.checkoutId}`
    }

    case 'metrics-period': {
      return `Ask it with --period ${next.period}`
    }

    case 'metrics-names': {
      return next.period ? `See the ${next.period} names: opsctl metrics names --period ${next.period}` : 'See every supported pair: opsctl metrics names'
    }

    case 'profile-add': {
      if (next.flag === 'base-urls') return 'Fix the profile: opsctl profile add <name> --health-url https://... --checkout-url https://...'
      return next.flag === 'public-key' ? 'Add it: opsctl profile add <name> --public-key <key>' : 'Add it: opsctl profile add <name> --secret-key-stdin'
    }

    case 'plan-show': {
      return `See the plan: opsctl plan show ${next.userId}`
    }

    case 'profile-urls': {
      return `Check the base URLs: opsctl profile show${context.profile ? ` ${shellQuote(context.profile)}` : ''}`
    }

    case 'sandbox-token': {
      return 'Run it on the machine that started the sandbox, or set OPSCTL_SANDBOX_TOKEN to the token given to sandbox start --token (and OPSCTL_SANDBOX_URL to its origin)'
    }

    case 'profile-show': {
      return `Check the profile keys: opsctl profile show${context.profile ? ` ${shellQuote(context.profile)}` : ''}`
    }

    case 'refund-again': {
      const {amount, checkoutId, currency, reason} = next
      return `opsctl refund create ${checkoutId} --reason ${shellQuote(reason)} --amount ${amount} --currency ${currency} --yes`
    }

    case 'refund-full': {
      return `opsctl refund create ${next.checkoutId} --reason "<reason>" --full`
    }

    case 'refund-get': {
      return `opsctl refund get ${next.checkoutId} ${next.refundId}`
    }

    case 'refund-list': {
      return `opsctl refund list ${next.checkoutId}`
    }

    case 'sandbox-start': {
      return `Start one: opsctl sandbox start${next.port === undefined || next.port === SANDBOX_PORT ? '' : ` --port ${next.port}`}`
    }

    case 'sign-in': {
      return `${next.again ? 'Sign in again' : 'Sign in'}: opsctl users login --email <email>${onProfile}`
    }

    case 'sign-in-as-owner': {
      return `Only that user may change their data (a linked caregiver may only read it); sign in as them: opsctl users login --email <email>${onProfile}`
    }

    case 'void': {
      return `opsctl checkout void ${next.checkoutId} --reason "<reason>"`
    }

    case 'void-again': {
      return `opsctl checkout void ${next.checkoutId} --reason ${shellQuote(next.reason)} --yes`
    }

    case 'webhook-delete': {
      return `opsctl webhook delete ${next.webhookId} --yes`
    }

    case 'webhook-list': {
      return 'opsctl webhook list'
    }

    case 'webhook-update': {
      return `opsctl webhook update ${next.webhookId} --name ${next.name} --url ${next.url}`
    }
  }
}

/** The command a rule refusal points to, named in its message ("...; use `opsctl refund create`"). */
const USE_INSTEAD: Record<string, string> = {
  [CODES.refundBeforeCutoff]: 'opsctl checkout void',
  [CODES.voidAfterCutoff]: 'opsctl refund create',
}

/** Where to find the ids that exist, when an operation on one answered 404. */
const LIST_FOR_MISSING: Partial<Record<OperationId, string>> = {
  deleteEvent: 'See the events: opsctl events list <userId>',
  deleteWebhook: 'See the webhooks: opsctl webhook list',
  getCheckout: 'See the checkouts created from this machine: opsctl checkout list',
  getEventById: 'See the events: opsctl events list <userId>',
  getRefund: 'See the refunds of the checkout: opsctl refund list <checkoutId>',
  refundCheckout: 'See the checkouts created from this machine: opsctl checkout list',
  updateEvent: 'See the events: opsctl events list <userId>',
  updateWebhook: 'See the webhooks: opsctl webhook list',
  voidCheckout: 'See the checkouts created from this machine: opsctl checkout list',
}

/** The error as the CLI shows it: its next steps worded first among the suggestions. */
export function withHints(error: OpsError, context: HintContext = {}): OpsError {
  error.suggestions.unshift(...error.next.map((n) => nextStepText(n, context)))
  if (error instanceof ApiError && error.status === 404 && TENANT_GONE.test(error.message)) error.suggestions.push(hints.tenantGone)
  const list = error instanceof ApiError && error.status === 404 ? LIST_FOR_MISSING[error.operationId as OperationId] : undefined
  if (list && !error.suggestions.includes(list)) error.suggestions.push(list)
  error.next.length = 0
  const use = error instanceof RuleError && error.code ? USE_INSTEAD[error.code] : undefined
  if (use) error.message = `${error.message}; use \`${use}\``
  return error
}

/** A sandbox's answer for a tenant it does not have (deleted, or its --ttl ran out). */
const TENANT_GONE = /^No tenant \S+ on this sandbox/

/** A word of a command line to copy: as it is when the shell reads it so, else in single quotes. */
export function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`
}
