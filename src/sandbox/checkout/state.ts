/**
 * Checkout service state held by the sandbox, in its database (core/store.ts): amounts as
 * two-decimal strings, times as ISO strings; tables keyed by SQL (so `__proto__` or `constructor`
 * is just an unknown id). Card data is never part of it beyond the last four digits and the scheme.
 */
import type {ModuleState} from '../core/module-state.js'

import {checkKeyIsId, checkRecord, tableOf} from '../core/state-document.js'
import {DocCell, DocTable, type TenantStore} from '../core/store.js'
import {
  RefundOutcomesSchema,
  StoredCheckoutSchema,
  StoredCustomizationSchema,
  StoredRefundsSchema,
  StoredWebhookSchema,
} from './stored-schemas.js'

export interface StoredCheckout {
  id: string
  totalAmount: {value: string; currency: string; details?: Record<string, unknown>}
  items: Record<string, unknown>[]
  buyer?: Record<string, unknown>
  redirectUrl?: {success?: string; failure?: string; cancel?: string}
  requestReferenceNumber: string
  metadata?: Record<string, unknown>
  /** CREATED | PROCESSING | COMPLETED | EXPIRED */
  status: string
  /** PENDING_PAYMENT | PAYMENT_SUCCESS | PAYMENT_FAILED | PAYMENT_EXPIRED | PAYMENT_CANCELLED | VOIDED | REFUNDED */
  paymentStatus: string
  isAutoRedirect: boolean
  paymentType?: string
  paymentScheme?: string
  receiptNumber?: string
  /** What has been refunded so far (successful refunds only), two decimals. */
  refundedAmount: string
  createdAt: string
  updatedAt: string
  /** createdAt + 1 h */
  expiredAt: string
  /** Set once the buyer submits the card form: when it was paid (success only), scheme and last 4 digits. */
  paymentDetails?: {paymentAt?: string; scheme: string; last4: string}
  /** Unknown request fields are kept, as the real service keeps them. */
  [extra: string]: unknown
}

export type RefundStatus = 'FAILED' | 'SUCCESS'

export interface StoredRefund {
  id: string
  checkout: string
  reason: string
  amount: {value: string; currency: string}
  status: RefundStatus
  createdAt: string
}

export interface StoredWebhook {
  id: string
  name: string
  callbackUrl: string
  createdAt: string
  updatedAt: string
}

export interface StoredCustomization {
  logoUrl: string
  iconUrl: string
  appleTouchIconUrl: string
  customTitle: string
  colorScheme: string
}

declare module '../types.js' {
  /** `ctx.state.checkout`: the checkout module's repositories. */
  interface SandboxState {
    checkout: CheckoutStore
  }
}

/** The checkout's collections (refunds are keyed by their checkout's id), and the keys of its settings. */
export const CHECKOUT_DOCS = {
  checkouts: 'checkout.checkouts',
  refunds: 'checkout.refunds',
  webhooks: 'checkout.webhooks',
  settings: 'checkout.settings',
  customization: 'customization',
  refundOutcomes: 'refundOutcomes',
} as const

/** The checkout module's state in the sandbox database: one repository per table. */
export class CheckoutStore implements ModuleState {
  readonly checkouts: DocTable<StoredCheckout>
  /** Refunds by checkout id, oldest first; FAILED attempts are kept. */
  readonly refunds: DocTable<StoredRefund[]>
  readonly webhooks: DocTable<StoredWebhook>
  readonly customization: DocCell<null | StoredCustomization>
  /** Statuses the next refunds will get (control route `/__sandbox/checkout/next-refund`), used in order. */
  readonly refundOutcomes: DocCell<RefundStatus[]>
  private readonly settings: DocTable<unknown>

  constructor(store: TenantStore) {
    this.checkouts = new DocTable(store, CHECKOUT_DOCS.checkouts)
    this.refunds = new DocTable(store, CHECKOUT_DOCS.refunds)
    this.webhooks = new DocTable(store, CHECKOUT_DOCS.webhooks)
    this.settings = new DocTable(store, CHECKOUT_DOCS.settings)
    this.customization = new DocCell(this.settings as DocTable<null | StoredCustomization>, CHECKOUT_DOCS.customization, () => null)
    this.refundOutcomes = new DocCell(this.settings as DocTable<RefundStatus[]>, CHECKOUT_DOCS.refundOutcomes, () => [])
  }

  async dump(): Promise<Record<string, unknown>> {
    return {
      checkouts: await this.checkouts.entries(),
      refunds: await this.refunds.entries(),
      webhooks: await this.webhooks.entries(),
      customization: await this.customization.get(),
      refundOutcomes: await this.refundOutcomes.get(),
    }
  }

  async load(section: Record<string, unknown>, version: number): Promise<void> {
    await this.reset()
    const tables = [
      {name: 'checkouts', table: this.checkouts, schema: StoredCheckoutSchema, byId: true},
      {name: 'refunds', table: this.refunds, schema: StoredRefundsSchema, byId: false},
      {name: 'webhooks', table: this.webhooks, schema: StoredWebhookSchema, byId: true},
    ] as const
    for (const {byId, name, schema, table} of tables) {
      if (section[name] === undefined) continue
      for (const entry of tableOf(section[name], version, `checkout.${name}`)) {
        const record = checkRecord(schema, entry.value, entry.where)
        if (byId) checkKeyIsId(entry)
        await (table as DocTable<unknown>).set(entry.key, record)
      }
    }

    const {customization, refundOutcomes} = section
    if (customization !== undefined) {
      const record = checkRecord(StoredCustomizationSchema, customization, 'checkout.customization')
      if (record !== null) await this.customization.set(record as StoredCustomization)
    }

    if (refundOutcomes !== undefined) {
      await this.refundOutcomes.set(checkRecord(RefundOutcomesSchema, refundOutcomes, 'checkout.refundOutcomes') as RefundStatus[])
    }
  }

  async reset(): Promise<void> {
    for (const table of [this.checkouts, this.refunds, this.webhooks, this.settings]) await table.clear()
  }
}
