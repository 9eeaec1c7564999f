import type {Transport, TransportOptions} from './transport.js'

import {DryRunTransport} from './dry-run.js'
import {HttpTransport} from './http-transport.js'

/**
 * The transport a command's options ask for. Apart from ./transport.ts, which only declares the
 * seam, so that the transports can import its types without an import cycle.
 */
export function createTransport(options: TransportOptions = {}): Transport {
  return options.dryRun ? new DryRunTransport() : new HttpTransport(options)
}
