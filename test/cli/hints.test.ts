/** The CLI words the facts of lower layers as "Try this:" commands, once, when it shows an error. */
import {describe, expect, it} from 'vitest'

import {withHints} from '../../src/cli/hints.js'
import {ApiError, formatErrorForHuman, NetworkError} from '../../src/errors.js'
import {healthClientModule} from '../../src/services/health/client-module.js'

/** What the health module says fixes a 401 or 403 (the HTTP layer puts it on the ApiError it makes). */
const healthAuthStep = (status: number) => healthClientModule.authStep!(status)

describe('withHints', () => {
  it('a rejected session or key points to the fix for that service', () => {
    const health = withHints(new ApiError({message: 'session expired', operationId: 'getUser', service: 'health', status: 401, authStep: healthAuthStep(401)}))
    expect(formatErrorForHuman(health)).toContain('Try this: Sign in again: opsctl users login --email <email>')
    const checkout = withHints(new ApiError({message: 'bad key', operationId: 'getCheckout', service: 'checkout', status: 403}))
    expect(checkout.suggestions).toEqual(['Check the profile keys: opsctl profile show'])
  })

  it('a hint names the profile the run used when it is not the active one, so the command acts on the same one', () => {
    const health = withHints(new ApiError({message: 'session expired', operationId: 'getUser', service: 'health', status: 401, authStep: healthAuthStep(401)}), {profile: 'staging'})
    expect(health.suggestions).toEqual(['Sign in again: opsctl users login --email <email> -p staging'])
    const checkout = withHints(new ApiError({message: 'bad key', operationId: 'getCheckout', service: 'checkout', status: 401}), {profile: 'staging'})
    expect(checkout.suggestions).toEqual(['Check the profile keys: opsctl profile show staging'])
    const forbidden = withHints(new ApiError({message: 'no', operationId: 'updateEvent', service: 'health', status: 403, authStep: healthAuthStep(403)}), {profile: 'staging'})
    expect(formatErrorForHuman(forbidden).split('\n')[1]).toBe(
      '  Try this: Only that user may change their data (a linked caregiver may only read it); sign in as them: opsctl users login --email <email> -p staging',
    )
  })

  it('next steps come first, before the plain suggestions, and are worded once', () => {
    const error = new NetworkError('lost', undefined, true, ['Raise the limit with --timeout <seconds>']).withNext(
      {checkoutId: 'chk_1', step: 'checkout-get'},
      {checkoutId: 'chk_1', reason: "customer's call", step: 'void-again'},
    )
    withHints(error)
    withHints(error)
    expect(error.suggestions).toEqual([
      'opsctl checkout get chk_1',
      `opsctl checkout void chk_1 --reason 'customer'\\''s call' --yes`,
      'Raise the limit with --timeout <seconds>',
    ])
  })
})
