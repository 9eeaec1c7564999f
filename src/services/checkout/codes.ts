/** The service's error codes that the rules and the CLI's hints refer to (checkout-api.md). */
export const CODES = {
  notFound: 'PY0009',
  notVoidable: 'PY0045',
  amountOver: 'PY0048',
  refundBeforeCutoff: 'PY0072',
  voidAfterCutoff: 'PY0073',
  refundExists: 'PY0082',
  webhookExists: 'PY0039',
  webhookNotFound: 'PY0038',
  noCustomization: 'PY0065',
} as const
