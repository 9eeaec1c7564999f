/**
 * Paid checkouts in a sandbox, fast: each created with the public key and paid on the hosted page
 * with the Mastercard test card (the sandbox's own flow, over HTTP), `concurrency` at a time.
 * Then the sandbox clock can be moved a day on (`nextDay`), past "refunds from the next day".
 * Used by the bulk tests and bench/bulk-refunds.mjs.
 */
const PUBLIC_KEY = 'pk-sandbox-Zq3Xb8Lm2Nc7Vt4Rw9Yh1Ks6'

export async function paidCheckouts({origin, count, amount = '100.00', concurrency = 8, reference = 'BULK', publicKey = PUBLIC_KEY}) {
  const ids = Array.from({length: count})
  let next = 0
  const auth = `Basic ${Buffer.from(`${publicKey}:`).toString('base64')}`
  const one = async (i) => {
    const created = await fetch(`${origin}/checkout/v1/checkouts`, {
      method: 'POST',
      headers: {authorization: auth, 'content-type': 'application/json'},
      body: JSON.stringify({
        totalAmount: {value: amount, currency: 'PHP'},
        items: [{name: 'Ticket', quantity: '1', amount: {value: amount}, totalAmount: {value: amount}}],
        requestReferenceNumber: `${reference}-${i}`,
        redirectUrl: {success: 'https://shop.example/ok', failure: 'https://shop.example/no', cancel: 'https://shop.example/cancel'},
      }),
    })
    if (created.status !== 200) throw new Error(`create checkout: ${created.status} ${await created.text()}`)
    const {checkoutId} = await created.json()
    const paid = await fetch(`${origin}/checkout/pay/${checkoutId}`, {
      method: 'POST',
      redirect: 'manual',
      headers: {'content-type': 'application/x-www-form-urlencoded'},
      body: new URLSearchParams({action: 'pay', cardNumber: '5123456789012346', expiry: '12/39', cvc: '123'}).toString(),
    })
    if (paid.status !== 303) throw new Error(`pay ${checkoutId}: ${paid.status}`)
    await paid.body?.cancel()
    ids[i] = checkoutId
  }

  await Promise.all(
    Array.from({length: concurrency}, async () => {
      while (next < count) await one(next++)
    }),
  )
  return ids
}

/** Moves the sandbox clock by `advance` (26h: the next day in Manila, whatever the hour). */
export async function moveClock({origin, token, advance = '26h'}) {
  const res = await fetch(`${origin}/__sandbox/clock`, {
    method: 'POST',
    headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json'},
    body: JSON.stringify({advance}),
  })
  if (!res.ok) throw new Error(`clock: ${res.status} ${await res.text()}`)
}
