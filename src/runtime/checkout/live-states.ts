/**
 * `checkout list` asks the service for the state of each checkout it shows (the audit log cannot
 * see a buyer pay, a card declined or a checkout expire): one read per row, a few at a time.
 */
import type {CheckoutSummary} from '../../audit/history.js'
import type {ServiceClient} from '../../http/client.js'

import {ApiError} from '../../errors.js'
import {serviceState} from '../../services/checkout/checkout-state.js'
import {checkoutOps} from '../../services/checkout/operations.js'
import {eachLimited} from '../bulk/pool.js'

/** Reads at once: enough to list 50 rows in a few round trips, few enough not to crowd the service. */
export const STATE_READS = 4

async function* each<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items
}

/**
 * The rows with state, stateAt and createdAt from the service (`source: service`), in the same
 * order. A checkout the service answers 404 for (a sandbox that kept its state in memory) keeps its
 * local view and is named in `missing`; any other failure is thrown.
 */
export async function withServiceStates(
  client: Pick<ServiceClient, 'call'>,
  rows: readonly CheckoutSummary[],
  concurrency = STATE_READS,
): Promise<{checkouts: CheckoutSummary[]; missing: string[]}> {
  const checkouts = [...rows]
  const missing: string[] = []
  const indexed = rows.map((row, index) => ({index, row}))
  await eachLimited(each(indexed), concurrency, async ({index, row}) => {
    try {
      const {data} = await client.call(checkoutOps.getCheckout, {params: {checkoutId: row.checkoutId}})
      const live = serviceState(data)
      checkouts[index] = {...row, state: live.state, stateAt: live.stateAt, createdAt: live.createdAt ?? row.createdAt, source: 'service'}
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) throw error
      missing.push(row.checkoutId)
    }
  })
  return {checkouts, missing}
}
