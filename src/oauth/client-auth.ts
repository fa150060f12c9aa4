import { secretMatches } from '../platform/crypto.js'
import type { Client, ClientStore } from '../storage/clients.js'
import { OAuthError } from './errors.js'

/** The credentials a client sends in a form body (RFC 6749 §2.3.1, `client_secret_post`). */
export interface ClientCredentials {
  readonly clientId: string | undefined
  readonly clientSecret: string | undefined
}

/** One message for every failure, so the answer never tells which part was wrong. */
const FAILED =
  'client authentication failed: send client_id, and client_secret if the client is confidential'

/**
 * Authenticates a client at the token, revocation or introspection endpoint. A public client
 * (`none`) sends only its `client_id` and must not send a secret; a confidential client
 * (`client_secret_post`) sends both, compared in constant time. Any failure is 401
 * `invalid_client` with the same description (RFC 6749 §5.2).
 *
 * @example
 * const client = await authenticateClient(deps.clients, {
 *   clientId: params.client_id,
 *   clientSecret: params.client_secret,
 * })
 */
export async function authenticateClient(
  clients: Pick<ClientStore, 'find'>,
  credentials: ClientCredentials,
): Promise<Client> {
  const { clientId, clientSecret } = credentials
  if (clientId === undefined) throw clientAuthenticationFailed()
  const client = await clients.find(clientId)
  if (!client) throw clientAuthenticationFailed()
  if (client.tokenEndpointAuthMethod === 'none') {
    // A secret from a public client is a confused or forged request, not a harmless extra.
    if (clientSecret !== undefined) throw clientAuthenticationFailed()
    return client
  }
  if (
    clientSecret === undefined ||
    client.secretDigest === undefined ||
    !secretMatches(clientSecret, client.secretDigest)
  ) {
    throw clientAuthenticationFailed()
  }
  return client
}

function clientAuthenticationFailed(): OAuthError {
  return new OAuthError('invalid_client', FAILED, 401)
}
