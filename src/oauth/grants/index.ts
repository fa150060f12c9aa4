import { digest } from '../../platform/crypto.js'
import { authenticateClient } from '../client-auth.js'
import { looksLikeClientIdUrl } from '../client-id-metadata/client-id-url.js'
import { OAuthError } from '../errors.js'
import type { IssuedTokens } from '../tokens/issue-tokens.js'
import { authorizationCodeGrant } from './authorization-code.js'
import type { GrantHandler, Prefetched, TokenDeps, TokenParams } from './grant.js'
import { refreshTokenGrant } from './refresh-token.js'

/**
 * Every grant type the token endpoint serves. JWT-bearer, token exchange, client credentials
 * and password are deliberately absent: they answer `unsupported_grant_type`.
 */
const GRANTS: ReadonlyMap<string, GrantHandler> = new Map(
  [authorizationCodeGrant, refreshTokenGrant].map((grant) => [grant.type, grant]),
)

/** The `grant_type` values served, as discovery's `grant_types_supported` lists them. */
export const GRANT_TYPES: readonly string[] = [...GRANTS.keys()]

/**
 * Answers a token request (RFC 6749 §3.2): picks the grant, authenticates the client,
 * checks the client is registered for the grant, and runs it.
 */
export async function exchangeToken(deps: TokenDeps, params: TokenParams): Promise<IssuedTokens> {
  const type = params.grant_type
  if (type === undefined) throw new OAuthError('invalid_request', 'grant_type is required')
  const grant = GRANTS.get(type)
  if (!grant) {
    throw new OAuthError(
      'unsupported_grant_type',
      `grant_type must be one of: ${GRANT_TYPES.join(', ')}`,
    )
  }
  // A refresh reads its client and its token in one query (one round trip on PostgreSQL);
  // the client is still authenticated before anything looks at the token.
  let clients: Pick<TokenDeps['clients'], 'find'> = deps.clients
  let prefetched: Prefetched | undefined
  if (type === 'refresh_token' && params.client_id !== undefined && params.refresh_token) {
    const refreshDigest = digest(params.refresh_token)
    const found = await deps.grants.findClientWithRefreshGrant(params.client_id, refreshDigest)
    // A metadata-document client is judged by its document at every use, not by its row.
    if (!looksLikeClientIdUrl(params.client_id)) clients = { find: async () => found.client }
    prefetched = { refreshDigest, refresh: found.refresh }
  }
  const client = await authenticateClient(clients, {
    clientId: params.client_id,
    clientSecret: params.client_secret,
  })
  if (!client.grantTypes.includes(type)) {
    throw new OAuthError(
      'unauthorized_client',
      `this client is not registered for the ${type} grant`,
    )
  }
  return grant.handle(deps, client, params, prefetched)
}

export type { TokenDeps, TokenParams } from './grant.js'
export { GrantRefused, type RefusalReason } from './grant.js'
