/**
 * Where the sandbox may send a webhook: a tenant's secret key registers a callback URL, and the
 * sandbox POSTs to it, so without rules any tenant could make the sandbox's host call addresses
 * only that host reaches.
 *
 * Addresses are judged by class (ipaddr.js knows the special ranges), and an IPv6 address that
 * carries an IPv4 one gets the class of the IPv4 it carries: IPv4-mapped `::ffff:0:0/96`,
 * IPv4-translated `::ffff:0:0:0/96`, IPv4-compatible `::/96`, NAT64 `64:ff9b::/96` and the local
 * `64:ff9b:1::/48` (every position RFC 6052 allows, the strictest wins), 6to4 `2002::/16` (bits
 * 16-48) and Teredo `2001::/32` (the client's address, inverted, in the last 32 bits).
 *
 * - Link-local addresses (169.254.0.0/16, fe80::/10), the cloud metadata addresses and their names
 *   (169.254.169.254, fd00:ec2::254, 100.100.100.200, metadata.google.internal, ...) are refused
 *   always: no test needs a webhook there, and a credential lives there.
 * - Every other address that is not global unicast (loopback, private, unspecified, carrier-grade
 *   NAT, unique-local, multicast, broadcast, benchmarking 198.18/15, documentation and reserved
 *   ranges, ...) and `localhost` are refused on a sandbox started with `--public` unless it is also
 *   started with `--allow-private-callbacks`: on one's own machine, a receiver on the loopback is
 *   the usual test (`webhook listen`); on a shared sandbox, it is the host's own services.
 *
 * A URL is checked when it is registered (literal addresses and names, a 400) and again before
 * each delivery, with the addresses its name resolves to (a webhook imported, or a name that
 * points somewhere else now). The delivery's connection then resolves the name once more, through
 * `guardedLookup`, and connects only to an address that passes: a name that answered a public
 * address to the check and a refused one to the connection (DNS rebinding) is not called.
 */
import type {LookupFunction} from 'node:net'

import ipaddr from 'ipaddr.js'
import {lookup as lookupAll} from 'node:dns'
import {lookup} from 'node:dns/promises'

export interface CallbackRules {
  /** every address that is not global unicast is refused too (a `--public` sandbox without `--allow-private-callbacks`) */
  refusePrivate: boolean
}

const METADATA_ADDRESSES = new Set(['fd00:ec2::254', '100.100.100.200'])
const METADATA_NAMES = new Set(['instance-data', 'instance-data.ec2.internal', 'metadata', 'metadata.azure.internal', 'metadata.goog', 'metadata.google.internal'])

/** How sure a refusal is: never (link-local, metadata), not on a public sandbox, or fine. */
type Verdict = 'never' | 'not-public' | 'public'
interface Judged {
  verdict: Verdict
  /** the range's name (ipaddr.js's) */
  range: string
  /** the IPv4 address an IPv6 one carries, when that decided */
  embedded?: string
}

const STRICTNESS: Record<Verdict, number> = {never: 2, 'not-public': 1, public: 0}

const v4 = (bytes: number[]) => new ipaddr.IPv4(bytes)

/** The IPv4 addresses an IPv6 address carries, by its range; [] when it carries none. */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] {
  const b = address.toByteArray()
  const range = address.range()
  if (range === 'ipv4Mapped' || range === 'rfc6145') return [v4(b.slice(12))]
  if (range === '6to4') return [v4(b.slice(2, 6))]
  if (range === 'teredo') return [v4(b.slice(12).map((byte) => byte ^ 0xff))]
  if (range === 'rfc6052') {
    // 64:ff9b::/96 carries it last; the local-use 64:ff9b:1::/48 may use any prefix of /48 and longer (RFC 6052 2.2, byte 8 skipped)
    if (address.match(ipaddr.IPv6.parse('64:ff9b::'), 96)) return [v4(b.slice(12))]
    return [
      [6, 7, 9, 10],
      [7, 9, 10, 11],
      [9, 10, 11, 12],
      [12, 13, 14, 15],
    ].map((at) => v4(at.map((i) => b[i])))
  }

  // IPv4-compatible (::/96, deprecated): everything but :: and ::1, which are IPv6's own
  if (b.slice(0, 12).every((byte) => byte === 0) && range !== 'unspecified' && range !== 'loopback') return [v4(b.slice(12))]
  return []
}

/** The code of a connection the deliveries' resolver did not let happen (its message says why). */
export const CALLBACK_REFUSED = 'ERR_CALLBACK_REFUSED'

/**
 * The resolver of the deliveries' connections (node:net's `lookup` option, which node:http and
 * undici both pass to the socket): the name's addresses as node:dns gives them, unless one of
 * them is refused by the rules, when the connection fails before it is made (CALLBACK_REFUSED,
 * with the reason). `resolve` is node:dns's lookup (a test gives one that answers as a rebinding
 * name would).
 */
export function guardedLookup(rules: CallbackRules, resolve: typeof lookupAll = lookupAll): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, {...options, all: true}, (error, addresses) => {
      if (error) return callback(error, '', 0)
      const found = addresses as {address: string; family: number}[]
      const refusal = resolvedRefusal(hostname, found, rules)
      if (refusal) return callback(Object.assign(new Error(`refused: ${refusal}`), {code: CALLBACK_REFUSED}), '', 0)

      if (options.all) return (callback as unknown as (e: null, a: typeof found) => void)(null, found)
      const [first] = found
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), {code: 'ENOTFOUND'}), '', 0)
      callback(null, first.address, first.family)
    })
  }
}

function judge(address: ipaddr.IPv4 | ipaddr.IPv6): Judged {
  const range = address.range()
  if (address.kind() === 'ipv6') {
    const carried = embeddedIPv4(address as ipaddr.IPv6).map((inner) => ({...judge(inner), embedded: inner.toString()}))
    if (carried.length > 0) return carried.reduce((a, b) => (STRICTNESS[b.verdict] > STRICTNESS[a.verdict] ? b : a))
  }

  if (range === 'linkLocal' || METADATA_ADDRESSES.has(address.toString())) return {range, verdict: 'never'}
  return {range, verdict: range === 'unicast' ? 'public' : 'not-public'}
}

const RANGE_WORDS: Record<string, string> = {
  carrierGradeNat: 'carrier-grade NAT',
  linkLocal: 'link-local',
  uniqueLocal: 'unique-local',
}

/** An IPv4 or IPv6 address written out (`10.0.0.1`, `::1`), not a name nor an IPv4 in another notation (`0x7f.1`). */
const isAddressLiteral = (host: string) => ipaddr.isValid(host) && (host.includes(':') || ipaddr.IPv4.isValidFourPartDecimal(host))

/** Why the sandbox does not send to this host (a name or an address as a URL gives it), or undefined. */
function hostRefusal(host: string, rules: CallbackRules): string | undefined {
  const name = host.replaceAll(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase()
  let judged: Judged
  if (isAddressLiteral(name)) judged = judge(ipaddr.parse(name))
  else if (METADATA_NAMES.has(name)) judged = {range: 'metadata', verdict: 'never'}
  else if (name === 'localhost' || name.endsWith('.localhost')) judged = {range: 'loopback', verdict: 'not-public'}
  else return undefined

  const carries = judged.embedded ? ` (it carries ${judged.embedded})` : ''
  if (judged.verdict === 'never') return `${name} is a link-local or cloud metadata address${carries}; the sandbox never sends webhooks there`
  if (judged.verdict === 'not-public' && rules.refusePrivate) {
    const kind = RANGE_WORDS[judged.range] ?? judged.range
    return `${name} is ${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} address${carries}, not a public one: refused on a --public sandbox (start it with --allow-private-callbacks to allow it)`
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
  if (isAddressLiteral(host)) return undefined
  return resolvedRefusal(host, await lookup(host, {all: true}).catch(() => []), rules)
}

/** Why a name is not called, given the addresses it resolves to: the first of them the rules refuse. */
function resolvedRefusal(host: string, addresses: readonly {address: string}[], rules: CallbackRules): string | undefined {
  for (const {address} of addresses) {
    const refusal = hostRefusal(address, rules)
    if (refusal) return `${host} resolves to ${refusal}`
  }

  return undefined
}
