/** Checkout service state held by the sandbox (extended by the checkout module). */
export interface CheckoutState {
  [key: string]: unknown
}

export function emptyCheckoutState(): CheckoutState {
  return {}
}
