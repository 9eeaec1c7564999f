/** Webhook changes that need a read first: a PUT of the whole record from a partial change. */
import type {ServiceClient} from '../../http/client.js'

import {ApiError, InputError, UsageError} from '../../errors.js'
import {describeIssues} from '../../http/client.js'
import {checkoutOps, type WebhookRecord, WebhookRequest} from './operations.js'
import {CODES} from './rules.js'

/** PUT needs both fields: the one not given is taken from the current webhook. */
export async function updateWebhookMerged(
  client: ServiceClient,
  webhookId: string,
  change: Partial<WebhookRequest>,
): Promise<WebhookRecord> {
  if (change.name === undefined && change.callbackUrl === undefined) {
    throw new InputError(['name', 'callbackUrl'], (name) => ({message: `Nothing to change: pass ${name('name')} and/or ${name('callbackUrl')}`}))
  }

  // Checked before the current webhook is read: a URL the PUT would refuse sends nothing at all.
  const partial = WebhookRequest.partial().safeParse(change)
  if (!partial.success) throw new UsageError(`Invalid request: ${describeIssues(partial.error.issues)}`)
  let {name, callbackUrl} = change
  if (name === undefined || callbackUrl === undefined) {
    const current = (await client.call(checkoutOps.listWebhooks)).data.find((w) => w.id === webhookId)
    if (!current) {
      throw new ApiError({
        status: 404,
        code: CODES.webhookNotFound,
        message: `webhook ${webhookId} not found`,
        service: 'checkout',
        operationId: checkoutOps.updateWebhook.id,
        suggestions: [],
      }).withNext({step: 'webhook-list'})
    }

    name ??= current.name as WebhookRequest['name']
    callbackUrl ??= current.callbackUrl
  }

  return (await client.call(checkoutOps.updateWebhook, {params: {webhookId}, body: {name, callbackUrl}})).data
}
