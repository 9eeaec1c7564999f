/** The whole probe suite of `sandbox diff`, or one service's part of it, in the order it runs. */
import {checkoutProbes} from './checkout-probes.js'
import {healthProbes} from './health-probes.js'
import {type Probe} from './probe.js'

export const DIFF_SERVICES = ['health', 'checkout', 'all'] as const

export function diffProbes(service: (typeof DIFF_SERVICES)[number]): readonly Probe[] {
  return [...(service === 'checkout' ? [] : healthProbes), ...(service === 'health' ? [] : checkoutProbes)]
}
