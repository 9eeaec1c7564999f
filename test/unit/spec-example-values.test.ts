/**
 * Every value the two specs name, sent to the sandbox as the spec shows it, is accepted: the
 * sandbox never refuses what the spec allows (a refusal the spec does not make is a fidelity bug a
 * merchant's code would only meet in the sandbox). The values are copied from the specs
 * (health-api.md, checkout-api.md), not from the code, so the code cannot drift with them.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {basicAuth} from '../../src/http/services.js'
import {createSandbox, type RunningSandbox} from '../../src/sandbox/core/server.js'
import {SANDBOX_KEYS} from '../../src/services/sandbox-defaults.js'

/** health-api.md section 8, "Supported metric names per period (getMetrics)". */
const METRICS: Record<string, string[]> = {
  series: ['actAdult', 'actChild'],
  daily: [
    'eventsControllerAdministered',
    'eventsControllerPrescribed',
    'eventsRescue',
    'eventsRescueSensor',
    'eventsRescueManual',
    'eventsRescueNight',
    'eventsRescueNightSensor',
    'eventsRescueNightManual',
    'rescueBaseline',
  ],
  weekly: ['adherencePercent'],
  monthly: [
    ...['Morning', 'Afternoon', 'Evening', 'Night'].map((t) => `trendTimeOfDay${t}`),
    ...['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'].map((d) => `trendDayOfWeek${d}`),
    ...['WokenAtNight', 'Cough', 'Wheeze', 'DifficultyBreathing', 'ShortnessOfBreath', 'ChestTightness', 'ActivityLimitations'].map((s) => `trendSymptom${s}`),
    ...['SmellsOrScents', 'RespiratoryInfection', 'Tobacco', 'ColdAir', 'Animals', 'Dust', 'OutdoorAllergens', 'WorkplaceExposure', 'AirPollution', 'Exercise', 'Unknown'].map(
      (t) => `trendTrigger${t}`,
    ),
  ],
}
/** checkout-api.md section 6 */
const EVENT_NAMES = ['CHECKOUT_SUCCESS', 'CHECKOUT_FAILURE', 'CHECKOUT_DROPOUT']
/** checkout-api.md section 2: "Recommended image formats" */
const IMAGE_FORMATS = ['jpg', 'gif', 'png', 'svg', 'ico']
/** "colorScheme: hex color of the button": any; light, dark, short, upper case, and the Node SDK's example */
const COLORS = ['#368d5c', '#ffff00', '#ffffff', '#000000', '#fff', '#FFF', '#1A2B3C']

const V = {'x-ph-api-version': '3.14.0'}
const JSON_TYPE = {'content-type': 'application/json'}

describe('every value the specs name is accepted by the sandbox', () => {
  let sb: RunningSandbox
  let cookie: string
  beforeAll(async () => {
    sb = await createSandbox({port: 0})
    const created = await sb.app.inject({
      method: 'POST',
      url: '/api/users',
      headers: {...V, ...JSON_TYPE, 'accept-language': 'en-PH'},
      payload: {role: 'patient', email: 'spec@example.com', password: 'a-long-password', givenName: 'Ana', familyName: 'Reyes'},
    })
    expect(created.statusCode).toBe(201)
    cookie = String(created.headers['set-cookie']).split(';')[0]
  })
  afterAll(() => sb.close())

  const secret = {authorization: basicAuth(SANDBOX_KEYS.secretKey), ...JSON_TYPE}

  it('getMetrics: every metric name with its period (health-api.md section 8), on /api/users/me with x-ph-api-version 3.14.0', async () => {
    const refused: string[] = []
    for (const [period, names] of Object.entries(METRICS)) {
      for (const name of names) {
        const res = await sb.app.inject({method: 'GET', url: `/api/users/me/metrics?name=${name}&period=${period}`, headers: {...V, cookie}})
        if (res.statusCode !== 200) refused.push(`${period}/${name}: ${res.statusCode} ${res.body}`)
      }
    }

    expect(refused).toEqual([])
  })

  it('Register webhook: each of the three event names', async () => {
    for (const name of EVENT_NAMES) {
      const res = await sb.app.inject({method: 'POST', url: '/checkout/v1/webhooks', headers: secret, payload: {name, callbackUrl: `https://shop.example/hooks/${name}`}})
      expect([name, res.statusCode]).toEqual([name, 200])
      expect(res.json()).toMatchObject({name, id: expect.any(String)})
    }
  })

  it('Set customization: every recommended image format, and any hex colour', async () => {
    for (const [i, color] of COLORS.entries()) {
      const format = IMAGE_FORMATS[i % IMAGE_FORMATS.length]
      const payload = {
        logoUrl: `https://cdn.example/logo.${format}`,
        iconUrl: `https://cdn.example/icon.${IMAGE_FORMATS[(i + 1) % IMAGE_FORMATS.length]}`,
        appleTouchIconUrl: `https://cdn.example/touch.${IMAGE_FORMATS[(i + 2) % IMAGE_FORMATS.length]}`,
        customTitle: 'Checkout Page Title',
        colorScheme: color,
      }
      const res = await sb.app.inject({method: 'POST', url: '/checkout/v1/customizations', headers: secret, payload})
      expect([color, res.statusCode, res.body]).toEqual([color, 200, expect.any(String)])
      expect(res.json()).toMatchObject({colorScheme: color})
    }
  })

  it('Initiate checkout: every field of the checkout request, amounts as decimal strings, quantity as a numeric string', async () => {
    const address = {line1: '9F Robinsons Cybergate 3', line2: 'Pioneer Street', city: 'Mandaluyong City', state: 'Metro Manila', zipCode: '12345', countryCode: 'PH'}
    const payload = {
      totalAmount: {currency: 'PHP', value: '69.00', details: {discount: '0.00', serviceCharge: '0.00', shippingFee: '14.00', tax: '5.00', subtotal: '50.00'}},
      buyer: {
        firstName: 'John',
        middleName: 'Michaels',
        lastName: 'Doe',
        contact: {phone: '+63(2)1234567890', email: 'paymayabuyer1@gmail.com'},
        shippingAddress: address,
        billingAddress: address,
        ipAddress: '203.0.113.7',
      },
      items: [
        {name: 'Leather Belt', code: 'pm_belt', description: 'Medium-sv', quantity: '1', amount: {value: '69.00', details: {discount: '0.00', subtotal: '69.00'}}, totalAmount: {value: '69.00', details: {discount: '0.00', subtotal: '69.00'}}},
        {name: 'Gift wrap', quantity: '0.00', amount: {value: '0.00'}, totalAmount: {value: '0.00'}},
      ],
      redirectUrl: {success: 'https://shop.example/success', failure: 'https://shop.example/failure', cancel: 'https://shop.example/cancel'},
      requestReferenceNumber: '123456789',
      metadata: {channel: 'web'},
    }
    const res = await sb.app.inject({method: 'POST', url: '/checkout/v1/checkouts', headers: {authorization: basicAuth(SANDBOX_KEYS.publicKey), ...JSON_TYPE}, payload})
    expect([res.statusCode, res.body]).toEqual([200, expect.stringContaining('checkoutId')])
  })
})
