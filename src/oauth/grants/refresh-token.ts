import { digest } from '../../platform/crypto.js'
import type { Client } from '../../storage/clients.js'
import { looksLikeClientIdUrl } from '../client-id-metadata/client-id-url.js'
import { OAuthError } from '../errors.js'
import { resolveResource } from '../resource.js'
import { parseScope } from '../scopes.js'
import { grantEnd, type IssuedTokens, issueTokens, tokenAnswer } from '../tokens/issue-tokens.js'
import {
  type GrantHandler,
  GrantRefused,
  type Prefetched,
  type RefusalReason,
  requireParam,
  type TokenDeps,
  type TokenParams,
} from './grant.js'

/**
 * How long after its rotation a refresh token counts as a concurrent refresh by the same
 * client rather than a replay. Clients do refresh from two places at once (two tabs, a
 * retry after a timeout); within this window the loser is refused without harm and
 * should use the tokens the winner got. Later, reuse revokes the grant (RFC 9700 §4.14.2).
 */
export const REFRESH_REUSE_GRACE_MS = 10_000

const REFRESH_REFUSED = 'the refresh token is invalid, expired, revoked or already used'

/**
 * The refresh token grant (RFC 6749 §6) with rotation on every use. Everything is checked
 * before the token is rotated, so a request refused for its `scope` or `resource` leaves
 * the client its refresh token; the rotation and the new tokens are stored in one atomic
 * step, so of two racing refreshes exactly one wins.
 */
export const refreshTokenGrant: GrantHandler = {
  type: 'refresh_token',
  async handle(deps, client, params, prefetched) {
    const presentedToken = requireParam(params, 'refresh_token')
    // Hashed once: the endpoint read the row by this token's digest (the same parameter).
    const presented = prefetched?.refreshDigest ?? digest(presentedToken)
    const now = deps.clock.now()

    const found = prefetched ? prefetched.refresh : await deps.grants.findRefreshGrant(presented)
    if (!found) throw refused('unknown_refresh_token')
    const { token, grant } = found
    if (token.client_id !== client.clientId) throw refused('refresh_client_mismatch')
    if (grant.revoked_at !== null) throw refused('grant_revoked')
    if (token.rotated_at !== null) {
      if (now - token.rotated_at <= REFRESH_REUSE_GRACE_MS)
        throw refused('refresh_token_concurrent')
      await deps.grants.revokeGrant(grant.id, now)
      throw refused('refresh_token_reused')
    }
    if (
      token.expires_at <= now ||
      grant.expires_at <= now ||
      grantEnd(grant.created_at, deps.config.lifetimes) <= now
    )
      throw refused('refresh_token_expired')
    if (!found.userActive) throw refused('user_inactive')

    const scope = narrowScope(token.scope, params.scope)
    if (params.resource !== undefined) {
      const audience = await resolveResource(
        params.resource,
        deps.config.issuer,
        deps.resourceServers,
      )
      if (audience !== grant.resource) {
        throw new OAuthError('invalid_target', 'resource must be the one the grant was issued for')
      }
    }

    const issued = await issueTokens(deps, {
      client,
      grantId: grant.id,
      grantCreatedAt: grant.created_at,
      userId: grant.user_id,
      scope,
      // RFC 6749 §6: a narrower request narrows the access token, never the refresh token.
      refreshScope: token.scope,
      audience: grant.resource,
      rotates: presented,
    })
    if (!issued) throw refused('refresh_token_concurrent')
    return issued
  },
}

/** What a refresh request's first step found, and the answer if it did the whole grant. */
export interface RefreshRead extends Prefetched {
  readonly client: Client | undefined
  readonly issued?: IssuedTokens
}

/**
 * A refresh request's first step: the client and the presented refresh token read together
 * (one round trip on PostgreSQL), for the grant above to judge. Where the database can do the
 * whole grant in one statement (PostgreSQL) and the request is the common one, a public
 * client refreshing with neither `scope` nor `resource` and a client_id that is not a
 * metadata document's URL, the same read also checks, rotates and stores the new tokens
 * (storage/refresh-rotation.ts): `issued` is then the answer. Otherwise, or when that
 * statement rotated nothing, the grant judges what was read and finds the exact refusal.
 */
export async function readRefresh(
  deps: TokenDeps,
  params: TokenParams,
  clientId: string,
  presentedToken: string,
): Promise<RefreshRead> {
  const refreshDigest = digest(presentedToken)
  const rotate = deps.grants.rotateRefreshInOneStatement
  if (
    rotate === undefined ||
    params.client_secret !== undefined ||
    params.scope !== undefined ||
    params.resource !== undefined ||
    looksLikeClientIdUrl(clientId)
  ) {
    const found = await deps.grants.findClientWithRefreshGrant(clientId, refreshDigest)
    return { ...found, refreshDigest }
  }
  const now = deps.clock.now()
  const { lifetimes } = deps.config
  const accessToken = deps.random.token('pat')
  const refreshToken = deps.random.token('prt')
  const outcome = await rotate({
    clientId,
    rotates: refreshDigest,
    now,
    grantMaximumMs: lifetimes.grantMaximum * 1000,
    accessDigest: digest(accessToken),
    accessExpires: now + lifetimes.accessToken * 1000,
    refreshDigest: digest(refreshToken),
    refreshLifetimeEnd: now + lifetimes.refreshToken * 1000,
  })
  if (!outcome.rotated) return { client: outcome.client, refresh: outcome.refresh, refreshDigest }
  return {
    client: undefined,
    refresh: undefined,
    refreshDigest,
    issued: tokenAnswer(lifetimes, accessToken, outcome.scope, refreshToken, undefined),
  }
}

/** The access token's scope: the granted one, or the requested subset of it. */
function narrowScope(granted: string, requested: string | undefined): string {
  if (requested === undefined) return granted
  const wanted = parseScope(requested)
  if (wanted === undefined) throw new OAuthError('invalid_scope', 'scope is malformed')
  const grantedScopes = granted.split(' ')
  if (wanted.some((s) => !grantedScopes.includes(s))) {
    throw new OAuthError('invalid_scope', 'scope may only narrow the scope originally granted')
  }
  return grantedScopes.filter((s) => wanted.includes(s)).join(' ')
}

function refused(reason: RefusalReason): GrantRefused {
  return new GrantRefused(reason, REFRESH_REFUSED)
}
