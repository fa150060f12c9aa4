import type { CompiledQuery } from 'kysely'
import type { Clock } from '../platform/clock.js'
import { digest } from '../platform/crypto.js'
import type { GrantStore } from '../storage/grants.js'
import type { LiveAccessToken } from '../storage/live-access-tokens.js'

/** RFC 6750 §2.1: `Bearer` (any case), one or more spaces, one b64token, nothing else. */
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*)$/i

/** What the Authorization header carries. */
export type BearerCredentials =
  | { readonly kind: 'none' }
  | { readonly kind: 'malformed' }
  | { readonly kind: 'token'; readonly token: string }

/** Reads the Authorization header; the query string and the body are never looked at. */
export function readBearer(header: string | undefined): BearerCredentials {
  if (header === undefined) return { kind: 'none' }
  const token = BEARER.exec(header)?.[1]
  return token === undefined ? { kind: 'malformed' } : { kind: 'token', token }
}

/** The verdict on a request's bearer token. */
export type BearerCheck =
  | { readonly status: 'anonymous' }
  | { readonly status: 'invalid'; readonly description: string }
  | {
      readonly status: 'valid'
      readonly live: LiveAccessToken
      readonly scopes: ReadonlySet<string>
    }

export interface BearerDeps {
  readonly grants: Pick<GrantStore, 'findLiveAccessToken' | 'findLiveAccessTokenWith'>
  readonly clock: Clock
}

/** A read to make with the token's, in one statement, and what it found (see below). */
export interface Companion<Row extends object> {
  /** Made only when it is to be read (not for a token SQLite keeps in memory). */
  readonly read: () => CompiledQuery<Row>
  /** Null when it found nothing; undefined when it was not read with the token. */
  found?: Row | null
}

/**
 * Checks the bearer token of a request for a protected resource whose identifier is
 * `audience`. No header is anonymous; a malformed header, an unknown, expired or revoked
 * token, or one issued for another resource (RFC 8707) is invalid, never anonymous.
 */
export async function checkBearer<Row extends object>(
  deps: BearerDeps,
  header: string | undefined,
  audience: string,
  companion?: Companion<Row>,
): Promise<BearerCheck> {
  const credentials = readBearer(header)
  if (credentials.kind === 'none') return { status: 'anonymous' }
  if (credentials.kind === 'malformed') {
    return {
      status: 'invalid',
      description: 'the Authorization header must be exactly: Bearer <access token>',
    }
  }
  const live = await liveToken(deps, digest(credentials.token), companion)
  if (!live)
    return { status: 'invalid', description: 'the access token is invalid, expired or revoked' }
  if (live.token.audience !== audience) {
    return { status: 'invalid', description: 'the access token was issued for another resource' }
  }
  return { status: 'valid', live, scopes: grantedScopes(live) }
}

/** Scope strings whose sets are kept (a few distinct ones in practice), emptied when full. */
const KEPT_SCOPE_STRINGS = 1000
const scopeSets = new Map<string, ReadonlySet<string>>()

/**
 * The scopes a live token was granted: one set per scope string, made the first time it is
 * seen and shared (read-only) by every token that holds the same string. Splitting the
 * string into a new set at every request read from PostgreSQL was 1.4 % of a course read's
 * CPU there (npm run bench --cpu-prof, issue 38).
 */
export function grantedScopes(live: LiveAccessToken): ReadonlySet<string> {
  const text = live.token.scope
  let scopes = scopeSets.get(text)
  if (!scopes) {
    if (scopeSets.size >= KEPT_SCOPE_STRINGS) scopeSets.clear()
    scopes = new Set(text.split(' '))
    scopeSets.set(text, scopes)
  }
  return scopes
}

/**
 * The live token of this digest; with a companion, read in the same statement where the
 * store can (its `found` is then set, and is only to be used once the token is accepted).
 */
async function liveToken<Row extends object>(
  deps: BearerDeps,
  tokenDigest: string,
  companion: Companion<Row> | undefined,
): Promise<LiveAccessToken | undefined> {
  const now = deps.clock.now()
  if (!companion) return deps.grants.findLiveAccessToken(tokenDigest, now)
  const pair = await deps.grants.findLiveAccessTokenWith(tokenDigest, now, companion.read)
  companion.found = pair.companion
  return pair.live
}

/** The protected resource metadata of the issuer's API (RFC 9728 §3). */
export function resourceMetadataUrl(issuer: string): string {
  return `${issuer}/.well-known/oauth-protected-resource`
}

export interface Challenge {
  readonly error?: 'invalid_token' | 'insufficient_scope' | 'invalid_request'
  readonly description?: string
  /** Space-separated scopes the request needs, with `insufficient_scope`. */
  readonly scope?: string
  /** The protected resource metadata to point at, when not the API's (the MCP endpoint's). */
  readonly resourceMetadata?: string
}

/**
 * A `WWW-Authenticate` value (RFC 6750 §3, RFC 9728 §5.1). Without an error it only points
 * to the resource metadata, as RFC 6750 §3.1 asks for a request with no credentials.
 *
 * @example bearerChallenge('https://school.example', { error: 'insufficient_scope', scope: 'openid' })
 * // Bearer error="insufficient_scope", scope="openid", resource_metadata="https://school.example/.well-known/oauth-protected-resource"
 */
export function bearerChallenge(issuer: string, challenge: Challenge = {}): string {
  const params: Array<[string, string]> = []
  if (challenge.error) params.push(['error', challenge.error])
  if (challenge.description) params.push(['error_description', challenge.description])
  if (challenge.scope) params.push(['scope', challenge.scope])
  params.push(['resource_metadata', challenge.resourceMetadata ?? resourceMetadataUrl(issuer)])
  return `Bearer ${params.map(([name, value]) => `${name}="${quotable(value)}"`).join(', ')}`
}

/** RFC 6750 §3: values are quoted strings without `"` or `\`, printable ASCII only. */
function quotable(value: string): string {
  return value.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, '')
}
