import type { Clock } from '../../platform/clock.js'
import type { PinnedFetchResult } from '../../platform/outbound/pinned-fetch.js'
import type { Client, ClientStore } from '../../storage/clients.js'
import type { RateLimiter } from '../../storage/rate-limits.js'
import type { TrustedClientDocumentStore } from '../../storage/trusted-client-documents.js'
import { OAuthError } from '../errors.js'
import { cacheSeconds } from './cache-lifetime.js'
import { checkMetadataDocument } from './check-document.js'
import { clientIdUrlProblem, looksLikeClientIdUrl } from './client-id-url.js'

/**
 * Finds the client a `client_id` names. Portico's own ids are looked up in the database; an
 * `https:` URL is a Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document),
 * fetched safely, validated, and kept in memory as long as its `Cache-Control` allows
 * (within 30 s … 24 h). Concurrent requests for one URL share a single fetch; a URL that
 * failed is not fetched again for a short pause; fetches are bounded per minute globally and
 * per host, counted where every instance sees them. An error or an invalid document is never
 * kept as a document.
 */

/** `invalid_client` carrying the exact reason, for the log; the client sees a generic text. */
export class ClientDocumentRefused extends OAuthError {
  override name = 'ClientDocumentRefused'
  readonly reason: string

  constructor(reason: string) {
    super(
      'invalid_client',
      'the client_id metadata document could not be fetched or is not valid',
      401,
    )
    this.reason = reason
  }
}

export interface ClientResolverSettings {
  /** Off: an https client_id is an unknown client like any other. */
  readonly enabled: boolean
  /** Document fetches per minute, all hosts together. */
  readonly fetchRateLimit: number
  /** Document fetches per minute to one host. */
  readonly hostFetchRateLimit: number
  /** Also accept `[::1]` loopback callbacks (PORTICO_ALLOW_LOOPBACK_HOSTNAMES). */
  readonly allowLoopbackHostnames: boolean
}

export interface ClientResolverDeps {
  readonly clients: Pick<ClientStore, 'find' | 'upsertMetadataDocumentClient'>
  readonly trusted: Pick<TrustedClientDocumentStore, 'isTrusted'>
  readonly rateLimiter: Pick<RateLimiter, 'hit'>
  readonly clock: Clock
  /** The SSRF-safe fetch (platform/outbound/pinned-fetch.ts), configured. */
  readonly fetchDocument: (url: URL) => Promise<PinnedFetchResult>
  readonly settings: ClientResolverSettings
}

/** How long a URL that failed is answered from memory before it is fetched again. */
export const FAILURE_PAUSE_MS = 10_000
/**
 * How long after its lifetime a valid document is still served when fetching it again is
 * refused by a budget or fails: an attacker exhausting the budgets cannot lock out agents
 * whose documents were already known.
 */
export const STALE_MS = 24 * 60 * 60_000
/** Documents kept in memory at most. */
const DOCUMENTS_CACHED = 1000
const MINUTE = 60_000

interface Kept {
  /** The body of a document that was valid when fetched. */
  readonly body: string
  readonly freshUntil: number
}

export function createClientResolver(deps: ClientResolverDeps) {
  const documents = new Map<string, Kept>()
  const failures = new Map<string, { reason: string; until: number }>()
  const inFlight = new Map<string, Promise<string>>()
  /** The copy of each client last written to the database by this instance. */
  const written = new Map<string, string>()

  const remember = <V>(map: Map<string, V>, key: string, value: V) => {
    map.delete(key)
    map.set(key, value)
    if (map.size > DOCUMENTS_CACHED) {
      const oldest = map.keys().next().value
      if (oldest !== undefined) map.delete(oldest)
    }
  }

  /** The body of a valid document at `url`: from memory, or fetched once for everyone waiting. */
  async function documentBody(url: string): Promise<string> {
    const now = deps.clock.now()
    const kept = documents.get(url)
    if (kept && kept.freshUntil > now) return kept.body
    try {
      return await freshBody(url, now)
    } catch (error) {
      // A budget refusal or a failed fetch does not lock out a document already known valid:
      // it is served stale for a bounded time. An invalid document was dropped when fetched.
      const last = documents.get(url)
      if (error instanceof ClientDocumentRefused && last && now - last.freshUntil <= STALE_MS) {
        return last.body
      }
      throw error
    }
  }

  async function freshBody(url: string, now: number): Promise<string> {
    const failed = failures.get(url)
    if (failed && failed.until > now) throw new ClientDocumentRefused(`${failed.reason} (paused)`)
    const pending = inFlight.get(url)
    if (pending) return pending
    const fetching = fetchAndCheck(url).finally(() => inFlight.delete(url))
    inFlight.set(url, fetching)
    return fetching
  }

  async function fetchAndCheck(url: string): Promise<string> {
    const parsed = new URL(url)
    const now = deps.clock.now()
    const { fetchRateLimit, hostFetchRateLimit } = deps.settings
    // Per host first: a host that is refused spends nothing of the budget all hosts share.
    const host = await deps.rateLimiter.hit(
      'cimd_fetch_host',
      parsed.hostname,
      hostFetchRateLimit,
      MINUTE,
      now,
    )
    if (!host.allowed) throw new ClientDocumentRefused('fetch budget exhausted (this host)')
    const global = await deps.rateLimiter.hit('cimd_fetch', 'all', fetchRateLimit, MINUTE, now)
    if (!global.allowed) throw new ClientDocumentRefused('fetch budget exhausted (all hosts)')

    const fail = (reason: string): never => {
      remember(failures, url, { reason, until: deps.clock.now() + FAILURE_PAUSE_MS })
      throw new ClientDocumentRefused(reason)
    }
    const result = await deps.fetchDocument(parsed)
    if (!result.ok) return fail(result.reason)
    // Judged once without trust; the trust-dependent rules are applied at every use.
    const check = checkMetadataDocument(result.body, url, {
      allowHostnames: deps.settings.allowLoopbackHostnames,
      trusted: true,
    })
    if (!check.ok) {
      documents.delete(url)
      return fail(check.reason)
    }
    failures.delete(url)
    remember(documents, url, {
      body: result.body,
      freshUntil: deps.clock.now() + cacheSeconds(result.cacheControl) * 1000,
    })
    return result.body
  }

  /** The client a metadata-document URL describes, or ClientDocumentRefused. */
  async function documentClient(url: string): Promise<Client> {
    const problem = clientIdUrlProblem(url)
    if (problem) throw new ClientDocumentRefused(problem)
    const body = await documentBody(url)
    const trusted = await deps.trusted.isTrusted(url)
    const check = checkMetadataDocument(body, url, {
      allowHostnames: deps.settings.allowLoopbackHostnames,
      trusted,
    })
    if (!check.ok) throw new ClientDocumentRefused(check.reason)
    const { document } = check
    const client: Client = {
      clientId: url,
      kind: 'metadata_document',
      clientName: document.clientName,
      secretDigest: undefined,
      tokenEndpointAuthMethod: 'none',
      applicationType: 'native',
      redirectUris: document.redirectUris,
      grantTypes: document.grantTypes,
      responseTypes: ['code'],
      scope: undefined,
      idTokenSignedResponseAlg: document.idTokenSignedResponseAlg,
      createdAt: deps.clock.now(),
      lastUsedAt: undefined,
    }
    // Grants and codes refer to the client's row: keep a copy, written when it changed or
    // when the row is gone (deleted by `portico clients delete` or the sweeper, maybe on
    // another instance), so that the next authorization request never names a missing row.
    const copy = JSON.stringify(document)
    let stored = await deps.clients.find(url)
    if (stored === undefined || written.get(url) !== copy) {
      await deps.clients.upsertMetadataDocumentClient(client)
      remember(written, url, copy)
      stored = await deps.clients.find(url)
    }
    return {
      ...client,
      createdAt: stored?.createdAt ?? client.createdAt,
      lastUsedAt: stored?.lastUsedAt,
    }
  }

  return {
    /**
     * The client named by `clientId`, or undefined when there is none. A metadata-document
     * URL that cannot be used throws ClientDocumentRefused with the reason.
     */
    async find(clientId: string): Promise<Client | undefined> {
      if (!looksLikeClientIdUrl(clientId)) return deps.clients.find(clientId)
      if (!deps.settings.enabled) return undefined
      return documentClient(clientId)
    },
  }
}

export type ClientResolver = ReturnType<typeof createClientResolver>
