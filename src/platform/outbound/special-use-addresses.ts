import ipaddr from 'ipaddr.js'

/**
 * Special-use IP addresses (RFC 6890 and its successors): everything that is not an
 * ordinary public unicast address. An outbound fetch to a URL a stranger names must never
 * reach one of these, or Portico becomes a way into the school's own network (server-side
 * request forgery). IPv4 addresses embedded in IPv6 (IPv4-mapped `::ffff:a.b.c.d`, NAT64
 * `64:ff9b::/96` and `64:ff9b:1::/48`, 6to4, Teredo, SIIT) are refused as a whole rather
 * than unwrapped, and so is any IPv6 address outside the global unicast block 2000::/3.
 */

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3')

/**
 * The special-use range an address belongs to (`loopback`, `private`, `linkLocal`,
 * `ipv4Mapped`, `rfc6052` for NAT64 …), `not_an_ip` for anything that is not an IP
 * address, or undefined for an ordinary public unicast address.
 */
export function specialUseRange(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'not_an_ip'
  // Only the four-part dotted decimal form of IPv4: no octal, hex or short forms.
  if (!address.includes(':') && !ipaddr.IPv4.isValidFourPartDecimal(address)) return 'not_an_ip'
  const parsed = ipaddr.parse(address)
  const range = parsed.range()
  if (range !== 'unicast') return range
  if (parsed.kind() === 'ipv6' && !parsed.match(GLOBAL_UNICAST_V6)) return 'not_global_unicast'
  return undefined
}

/** Whether `address` is a special-use address (or not an IP address at all). */
export function isSpecialUseAddress(address: string): boolean {
  return specialUseRange(address) !== undefined
}

/** Whether `address` is a loopback address (127.0.0.0/8, ::1). */
export function isLoopbackAddress(address: string): boolean {
  return ipaddr.isValid(address) && ipaddr.parse(address).range() === 'loopback'
}

/** The address in its one normal written form, for comparing two spellings. */
export function normalAddress(address: string): string {
  return ipaddr.parse(address).toNormalizedString()
}
