import type { Clock } from '../platform/clock.js'
import { digest } from '../platform/crypto.js'
import type { Client } from '../storage/clients.js'
import type { GrantStore } from '../storage/grants.js'

/**
 * Revokes a token for the client that holds it (RFC 7009 §2.1). A refresh token ends its
 * whole grant, with every access token issued under it; an access token ends alone. A token
 * that is unknown, malformed or another client's is left alone: the answer is the same, so
 * the endpoint cannot be used to probe for tokens (§2.2). Returns what was revoked, for logs.
 */
export async function revokeToken(
  deps: { grants: GrantStore; clock: Clock },
  client: Client,
  token: string,
  hint: string | undefined,
): Promise<'grant' | 'access_token' | 'nothing'> {
  const tokenDigest = digest(token)
  const tryRefresh = async () => {
    const row = await deps.grants.findRefreshToken(tokenDigest)
    if (!row || row.client_id !== client.clientId) return false
    await deps.grants.revokeGrant(row.grant_id, deps.clock.now())
    return true
  }
  const tryAccess = async () => {
    const row = await deps.grants.findAccessToken(tokenDigest)
    if (!row || row.client_id !== client.clientId) return false
    await deps.grants.deleteAccessToken(tokenDigest)
    return true
  }
  // The hint orders the look-ups only (§2.1): a wrong hint still finds the token.
  if (hint === 'access_token') {
    if (await tryAccess()) return 'access_token'
    return (await tryRefresh()) ? 'grant' : 'nothing'
  }
  if (await tryRefresh()) return 'grant'
  return (await tryAccess()) ? 'access_token' : 'nothing'
}
