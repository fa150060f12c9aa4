import type { LookupAddress } from 'node:dns'
import { lookup as dnsLookup } from 'node:dns/promises'
import type * as Undici from 'undici'
import { lazyModule } from '../lazy-module.js'
import { isLoopbackAddress, normalAddress, specialUseRange } from './special-use-addresses.js'

/**
 * An outbound GET of a URL that a stranger named, made safe against server-side request
 * forgery: the host is resolved once, every address it resolves to is checked, and the
 * connection goes to the address that was checked (undici's `connect.lookup` answers with
 * it, so a DNS rebinding answer on a second look-up is never asked for). Redirects are not
 * followed, only `200` with a JSON content type is accepted, at most `maxBytes` are read,
 * and the whole exchange, DNS included, has one deadline.
 */

/** Resolves a host name to its addresses, like `dns.lookup(host, { all: true })`. */
export type Resolver = (hostname: string) => Promise<readonly LookupAddress[]>

export const systemResolver: Resolver = (hostname) =>
  dnsLookup(hostname, { all: true, verbatim: true })

export interface PinnedFetchOptions {
  readonly resolve: Resolver
  /**
   * The one loopback address that may be fetched: Portico's own, when Portico itself is
   * served on a loopback address (draft-ietf-oauth-client-id-metadata-document §6.5, for
   * development). Undefined: every loopback address is refused like any special-use one.
   */
  readonly ownLoopback: string | undefined
  /** Certificate authorities to trust instead of Node's; for tests with a CA of their own. */
  readonly ca?: string | undefined
  readonly timeoutMs: number
  readonly maxBytes: number
}

export type PinnedFetchResult =
  | {
      readonly ok: true
      readonly body: string
      readonly cacheControl: string | undefined
      /** The address connected to. */
      readonly address: string
    }
  | { readonly ok: false; readonly reason: string }

/** `application/json` or any `application/<something>+json`, parameters allowed. */
const JSON_MEDIA_TYPE = /^application\/(?:[a-z0-9.+-]+\+)?json\s*(?:;|$)/i

/** The HTTP client, loaded at the first outbound fetch (most deployments make none). */
const httpClient = lazyModule<typeof Undici>('undici')

/**
 * Fetches `url` (an https URL already judged acceptable as a string) and returns its body,
 * or the reason it was refused; it never throws for anything the remote side does.
 *
 * @example
 * const result = await pinnedFetch(new URL('https://app.example/client.json'), {
 *   resolve: systemResolver, ownLoopback: undefined, timeoutMs: 5000, maxBytes: 5120,
 * })
 */
export async function pinnedFetch(
  url: URL,
  options: PinnedFetchOptions,
): Promise<PinnedFetchResult> {
  const signal = AbortSignal.timeout(options.timeoutMs)
  const checked = await checkedAddress(url, options, signal)
  if ('reason' in checked) return { ok: false, reason: checked.reason }
  const { address, family } = checked
  const { Agent, request } = httpClient()
  const agent = new Agent({
    connect: {
      timeout: options.timeoutMs,
      ...(options.ca !== undefined && { ca: options.ca }),
      // The only answer undici ever gets for this host: the address checked above.
      lookup: (_hostname, lookupOptions, callback) => {
        if ((lookupOptions as { all?: boolean }).all) callback(null, [{ address, family }])
        else callback(null, address, family)
      },
    },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    connections: 1,
  })
  try {
    const response = await request(url, {
      method: 'GET',
      dispatcher: agent,
      signal,
      headers: { accept: 'application/json', 'user-agent': 'Portico' },
    })
    const { statusCode, headers, body } = response
    try {
      if (statusCode !== 200) return { ok: false, reason: `http_status_${statusCode}` }
      const contentType = single(headers['content-type'])
      if (contentType === undefined || !JSON_MEDIA_TYPE.test(contentType))
        return { ok: false, reason: 'not_json_content_type' }
      const declared = Number(single(headers['content-length']) ?? Number.NaN)
      if (declared > options.maxBytes) return { ok: false, reason: 'too_large' }
      const chunks: Buffer[] = []
      let size = 0
      for await (const chunk of body) {
        const buffer = chunk as Buffer
        size += buffer.length
        if (size > options.maxBytes) return { ok: false, reason: 'too_large' }
        chunks.push(buffer)
      }
      return {
        ok: true,
        body: Buffer.concat(chunks).toString('utf8'),
        cacheControl: single(headers['cache-control']),
        address,
      }
    } finally {
      // Stops reading whatever is left (an oversized or unwanted body) and frees the socket;
      // undici reports a body destroyed unread as an abort, which is what was meant.
      body.on('error', () => {})
      body.destroy()
    }
  } catch {
    return { ok: false, reason: signal.aborted ? 'timeout' : 'connection_failed' }
  } finally {
    agent.destroy().catch(() => {})
  }
}

type Checked = { address: string; family: 4 | 6 } | { reason: string }

/** Resolves the host once (an IP literal is used as written) and checks every address. */
async function checkedAddress(
  url: URL,
  options: PinnedFetchOptions,
  signal: AbortSignal,
): Promise<Checked> {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
  let addresses: readonly LookupAddress[]
  if (specialUseRange(host) !== 'not_an_ip') {
    addresses = [{ address: host, family: host.includes(':') ? 6 : 4 }]
  } else {
    try {
      addresses = await Promise.race([
        options.resolve(host),
        new Promise<never>((_, reject) => {
          signal.addEventListener('abort', () => reject(signal.reason), { once: true })
        }),
      ])
    } catch {
      return { reason: signal.aborted ? 'timeout' : 'dns_failed' }
    }
  }
  const first = addresses[0]
  if (!first) return { reason: 'dns_no_address' }
  // Every answer must be acceptable: which one a later connection would pick is not ours to say.
  for (const { address } of addresses) {
    const range = specialUseRange(address)
    if (range === undefined) continue
    if (range === 'loopback' && isOwnLoopback(address, options.ownLoopback)) continue
    return { reason: `special_use_address_${range}` }
  }
  return { address: first.address, family: first.family === 6 ? 6 : 4 }
}

function isOwnLoopback(address: string, own: string | undefined): boolean {
  return (
    own !== undefined && isLoopbackAddress(own) && normalAddress(address) === normalAddress(own)
  )
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}
