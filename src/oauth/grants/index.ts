import { authenticateClient } from '../client-auth.js'
import { looksLikeClientIdUrl } from '../client-id-metadata/client-id-url.js'
import { OAuthError } from '../errors.js'
import type { IssuedTokens } from '../tokens/issue-tokens.js'
import { authorizationCodeGrant } from './authorization-code.js'
import type { GrantHandler, Prefetched, TokenDeps, TokenParams } from './grant.js'
import { readRefresh, refreshTokenGrant } from './refresh-token.js'

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
  // A refresh reads its client and its token in one query (one round trip on PostgreSQL),
  // and the client is still authenticated before anything looks at the token; on
  // PostgreSQL a public client's plain refresh is done whole by that query (readRefresh).
  let clients: Pick<TokenDeps['clients'], 'find'> = deps.clients
  let prefetched: Prefetched | undefined
  const { client_id: clientId, refresh_token: refreshToken } = params
  if (type === 'refresh_token' && clientId !== undefined && refreshToken) {
    const found = await readRefresh(deps, params, clientId, refreshToken)
    if (found.issued) return found.issued
    // A metadata-document client is judged by its document at every use, not by its row.
    if (!looksLikeClientIdUrl(clientId)) clients = { find: async () => found.client }
    prefetched = found
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
