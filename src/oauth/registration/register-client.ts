import { type Clock, epochSeconds } from '../../platform/clock.js'
import { digest } from '../../platform/crypto.js'
import type { Random } from '../../platform/random.js'
import { hiddenCharacter } from '../../platform/visible-text.js'
import type { Client, ClientStore } from '../../storage/clients.js'
import { OAuthError } from '../errors.js'
import type { ClientMetadata } from './check-client-metadata.js'
import { INTEGRATION_RULE, isAllowedIntegrationUri } from './check-redirect-uri.js'

export interface RegistrationDeps {
  readonly clients: ClientStore
  readonly clock: Clock
  readonly random: Random
}

/** A newly registered client and, for a confidential one, its secret, shown this once. */
export interface Registered {
  readonly client: Client
  readonly clientSecret: string | undefined
}

/** Stores a self-registered client from checked metadata (RFC 7591 §3.1). */
export async function registerClient(
  deps: RegistrationDeps,
  metadata: ClientMetadata,
): Promise<Registered> {
  return store(deps, 'self_registered', metadata)
}

export interface IntegrationInput {
  readonly name: string
  readonly redirectUris: readonly string[]
  readonly confidential: boolean
}

/** Registers an operator's integration, whose fixed HTTPS callbacks self-service refuses. */
export async function createIntegration(
  deps: RegistrationDeps,
  input: IntegrationInput,
): Promise<Registered> {
  const name = input.name.trim()
  if (name === '' || name.length > 100)
    throw new OAuthError('invalid_client_metadata', 'the name must be 1-100 characters')
  const hidden = hiddenCharacter(name)
  if (hidden)
    throw new OAuthError(
      'invalid_client_metadata',
      `the name must not contain invisible or formatting characters (found ${hidden})`,
    )
  if (input.redirectUris.length === 0)
    throw new OAuthError('invalid_redirect_uri', 'at least one redirect URI is required')
  for (const uri of input.redirectUris) {
    if (!isAllowedIntegrationUri(uri)) {
      throw new OAuthError(
        'invalid_redirect_uri',
        `${JSON.stringify(uri)} refused: ${INTEGRATION_RULE}`,
      )
    }
  }
  return store(deps, 'integration', {
    redirectUris: [...new Set(input.redirectUris)],
    tokenEndpointAuthMethod: input.confidential ? 'client_secret_post' : 'none',
    applicationType: 'native',
    grantTypes: ['authorization_code', 'refresh_token'],
    responseTypes: ['code'],
    clientName: name,
    scope: undefined,
    idTokenSignedResponseAlg: 'RS256',
  })
}

async function store(
  deps: RegistrationDeps,
  kind: Client['kind'],
  metadata: ClientMetadata,
): Promise<Registered> {
  const confidential = metadata.tokenEndpointAuthMethod === 'client_secret_post'
  const clientSecret = confidential ? deps.random.token('pcs') : undefined
  const client: Client = {
    clientId: deps.random.id('pci'),
    kind,
    clientName: metadata.clientName,
    secretDigest: clientSecret && digest(clientSecret),
    tokenEndpointAuthMethod: metadata.tokenEndpointAuthMethod,
    applicationType: metadata.applicationType,
    redirectUris: metadata.redirectUris,
    grantTypes: metadata.grantTypes,
    responseTypes: metadata.responseTypes,
    scope: metadata.scope,
    idTokenSignedResponseAlg: metadata.idTokenSignedResponseAlg,
    createdAt: deps.clock.now(),
    lastUsedAt: undefined,
  }
  await deps.clients.insert(client)
  return { client, clientSecret }
}

/** The registration response (RFC 7591 §3.2.1): every registered value, never a null. */
export function registrationResponse({
  client,
  clientSecret,
}: Registered): Record<string, unknown> {
  return {
    client_id: client.clientId,
    client_id_issued_at: epochSeconds(client.createdAt),
    ...(clientSecret ? { client_secret: clientSecret, client_secret_expires_at: 0 } : {}),
    ...(client.clientName ? { client_name: client.clientName } : {}),
    redirect_uris: client.redirectUris,
    token_endpoint_auth_method: client.tokenEndpointAuthMethod,
    grant_types: client.grantTypes,
    response_types: client.responseTypes,
    application_type: client.applicationType,
    ...(client.scope ? { scope: client.scope } : {}),
    id_token_signed_response_alg: client.idTokenSignedResponseAlg,
  }
}
