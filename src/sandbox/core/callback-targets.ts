/**
 * Where the sandbox may send a webhook: a tenant's secret key registers a callback URL, and the
 * sandbox POSTs to it, so without rules any tenant could make the sandbox's host call addresses
 * only that host reaches.
 *
 * - Link-local addresses (169.254.0.0/16, fe80::/10), the cloud metadata addresses and their names
 *   (169.254.169.254, fd00:ec2::254, 100.100.100.200, metadata.google.internal, ...) are refused
 *   always: no test needs a webhook there, and a credential lives there.
 * - Loopback and private addresses (127.0.0.0/8, ::1, 0.0.0.0/8, 10/8, 172.16/12, 192.168/16,
 *   100.64/10, fc00::/7, `localhost`) are refused on a sandbox started with `--public` unless it is
 *   also started with `--allow-private-callbacks`: on one's own machine, a receiver on the loopback
 *   is the usual test (`webhook listen`); on a shared sandbox, it is the host's own services.
 *
 * A URL is checked when it is registered (literal addresses and names, a 400) and again before
 * each delivery, with the addresses its name resolves to (a webhook imported, or a name that
 * points somewhere else now).
 */
import {lookup} from 'node:dns/promises'
import {BlockList, isIP} from 'node:net'

export interface CallbackRules {
  /** loopback and private addresses are refused too (a `--public` sandbox without `--allow-private-callbacks`) */
  refusePrivate: boolean
}

const subnets = (list: readonly string[]): BlockList => {
  const blocks = new BlockList()
  for (const entry of list) {
    const [address, bits] = entry.split('/')
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4'
    if (bits === undefined) blocks.addAddress(address, type)
    else blocks.addSubnet(address, Number(bits), type)
  }

  return blocks
}

const LINK_LOCAL_OR_METADATA = subnets(['169.254.0.0/16', 'fe80::/10', 'fd00:ec2::254', '100.100.100.200'])
const LOOPBACK_OR_PRIVATE = subnets([
  '127.0.0.0/8',
  '0.0.0.0/8',
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '100.64.0.0/10',
  '::1',
  '::',
  'fc00::/7',
])
const METADATA_NAMES = new Set(['instance-data', 'instance-data.ec2.internal', 'metadata', 'metadata.azure.internal', 'metadata.goog', 'metadata.google.internal'])

const blocked = (list: BlockList, address: string) => list.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4')

/** Why the sandbox does not send to this host (a name or an address as a URL gives it), or undefined. */
function hostRefusal(host: string, rules: CallbackRules): string | undefined {
  const name = host.replaceAll(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase()
  if (isIP(name) ? blocked(LINK_LOCAL_OR_METADATA, name) : METADATA_NAMES.has(name)) {
    return `${name} is a link-local or cloud metadata address; the sandbox never sends webhooks there`
  }

  const local = isIP(name) ? blocked(LOOPBACK_OR_PRIVATE, name) : name === 'localhost' || name.endsWith('.localhost')
  if (local && rules.refusePrivate) {
    return `${name} is a loopback or private address, refused on a --public sandbox (start it with --allow-private-callbacks to allow it)`
  }

  return undefined
}

/** At registration: the URL's own host (no name is resolved). */
export function callbackRefusal(url: string, rules: CallbackRules): string | undefined {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return undefined
  }

  return hostRefusal(parsed.hostname, rules)
}

/** Before a delivery: the URL's host and every address its name resolves to now. A name that does not resolve is left to the delivery to fail. */
export async function deliveryRefusal(url: string, rules: CallbackRules): Promise<string | undefined> {
  const refused = callbackRefusal(url, rules)
  if (refused) return refused
  const host = new URL(url).hostname.replaceAll(/^\[|\]$/g, '')
  if (isIP(host)) return undefined
  const addresses = await lookup(host, {all: true}).catch(() => [])
  for (const {address} of addresses) {
    const refusal = hostRefusal(address, rules)
    if (refusal) return `${host} resolves to ${refusal}`
  }

  return undefined
}
