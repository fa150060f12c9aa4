import { createHash, timingSafeEqual } from 'node:crypto'
import { digest } from '../../platform/crypto.js'
import type { CodeRow } from '../../storage/grants.js'
import { OAuthError } from '../errors.js'
import { resolveResource } from '../resource.js'
import { issueTokens } from '../tokens/issue-tokens.js'
import { type GrantHandler, GrantRefused, type RefusalReason, requireParam } from './grant.js'

/** RFC 7636 §4.1: 43–128 characters of the unreserved alphabet. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/

const CODE_REFUSED =
  'the authorization code is invalid, expired or already used, or does not match this client, redirect_uri and code_verifier'

/**
 * The authorization code grant (RFC 6749 §4.1.3) with PKCE (RFC 7636 §4.6). The code is
 * consumed first, atomically, so two racing requests cannot both redeem it; every check
 * after that fails with the code already spent. A second redemption revokes the grant and
 * every token issued from the code (RFC 6749 §4.1.2).
 */
export const authorizationCodeGrant: GrantHandler = {
  type: 'authorization_code',
  async handle(deps, client, params) {
    const code = requireParam(params, 'code')
    const redirectUri = requireParam(params, 'redirect_uri')
    const verifier = requireParam(params, 'code_verifier')
    const now = deps.clock.now()

    const redemption = await deps.grants.redeemCode(digest(code), now)
    if (redemption.status === 'unknown') throw refused('unknown_code')
    if (redemption.status === 'replayed') {
      await deps.grants.revokeGrant(redemption.code.grant_id, now)
      throw refused('code_replayed')
    }
    const row = redemption.code
    const mismatch = checkCode(row, client.clientId, redirectUri, verifier, now)
    if (mismatch === 'malformed_code_verifier') {
      throw new GrantRefused(
        mismatch,
        'code_verifier must be 43-128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636 §4.1)',
      )
    }
    if (mismatch) throw refused(mismatch)
    // Checked at redemption, not only at approval: a person suspended (or set back to
    // invited), or whose grants ended (a new password, a revocation), between the two gets
    // no tokens and no ID token from a code approved before.
    const obstacle = await deps.grants.grantObstacle(row.grant_id)
    if (obstacle) {
      await deps.grants.revokeGrant(row.grant_id, now)
      throw refused(obstacle)
    }

    if (params.resource !== undefined) {
      const audience = await resolveResource(
        params.resource,
        deps.config.issuer,
        deps.resourceServers,
      )
      if (audience !== row.resource) {
        throw new OAuthError('invalid_target', 'resource must be the one the code was issued for')
      }
    }

    const issued = await issueTokens(deps, {
      client,
      grantId: row.grant_id,
      // The grant and its code are stored together, at the approval (issue-code.ts).
      grantCreatedAt: row.created_at,
      userId: row.user_id,
      scope: row.scope,
      refreshScope: row.scope,
      audience: row.resource,
      idToken: { authTime: row.auth_time, nonce: row.nonce ?? undefined },
    })
    // Only a rotation can lose a race, and a code grant rotates nothing.
    if (!issued) throw new Error('tokens for a redeemed code were not stored')
    return issued
  },
}

/** The first way the redeemed code does not fit the request, or undefined when it fits. */
function checkCode(
  row: CodeRow,
  clientId: string,
  redirectUri: string,
  verifier: string,
  now: number,
): RefusalReason | undefined {
  if (row.expires_at <= now) return 'code_expired'
  if (row.client_id !== clientId) return 'code_client_mismatch'
  // RFC 6749 §4.1.3: identical to the redirect_uri of the authorization request.
  if (row.redirect_uri !== redirectUri) return 'redirect_uri_mismatch'
  if (!VERIFIER.test(verifier)) return 'malformed_code_verifier'
  if (!challengeMatches(verifier, row.code_challenge)) return 'code_verifier_mismatch'
  return undefined
}

/** BASE64URL(SHA256(verifier)) == challenge (RFC 7636 §4.6), compared in constant time. */
function challengeMatches(verifier: string, challenge: string): boolean {
  const computed = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'))
  const stored = Buffer.from(challenge)
  return computed.length === stored.length && timingSafeEqual(computed, stored)
}

function refused(reason: RefusalReason): GrantRefused {
  return new GrantRefused(reason, CODE_REFUSED)
}
