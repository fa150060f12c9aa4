import { type Clock, epochSeconds } from '../platform/clock.js'
import { digest, secretMatches } from '../platform/crypto.js'
import type { ClientStore } from '../storage/clients.js'
import type { GrantStore } from '../storage/grants.js'
import type { ResourceServerStore } from '../storage/resource-servers.js'
import { isActive, type UserStore } from '../storage/users.js'
import { authenticateClient } from './client-auth.js'
import { OAuthError } from './errors.js'
import { roleAllows } from './roles.js'

/** Who asks: a client (about its own tokens) or a resource server (about tokens for it). */
export type Introspector =
  | { readonly kind: 'client'; readonly clientId: string }
  | { readonly kind: 'resource_server'; readonly identifier: string }

export interface IntrospectionDeps {
  readonly clients: Pick<ClientStore, 'find'>
  readonly resourceServers: Pick<ResourceServerStore, 'findById'>
  readonly grants: GrantStore
  readonly users: Pick<UserStore, 'findById'>
  readonly clock: Clock
  readonly issuer: string
}

const INACTIVE = Object.freeze({ active: false })

/**
 * Authenticates the caller: a registered resource server (`rs_…` id and its secret), or a
 * client as at the token endpoint. Every failure is the same 401 `invalid_client`.
 */
export async function authenticateIntrospector(
  deps: IntrospectionDeps,
  clientId: string | undefined,
  clientSecret: string | undefined,
): Promise<Introspector> {
  if (clientId?.startsWith('rs_')) {
    const server = await deps.resourceServers.findById(clientId)
    if (
      !server ||
      clientSecret === undefined ||
      !secretMatches(clientSecret, server.secretDigest)
    ) {
      throw new OAuthError(
        'invalid_client',
        'client authentication failed: send client_id, and client_secret if the client is confidential',
        401,
      )
    }
    return { kind: 'resource_server', identifier: server.identifier }
  }
  const client = await authenticateClient(deps.clients, { clientId, clientSecret })
  return { kind: 'client', clientId: client.clientId }
}

/**
 * RFC 7662 §2.2. An active token is described; anything else — expired, revoked, unknown,
 * malformed, or not the caller's to ask about — is exactly `{"active": false}`. The scope
 * reported is what the token can do today: granted scopes the person's role still allows.
 */
export async function introspect(
  deps: IntrospectionDeps,
  caller: Introspector,
  token: string,
  hint: string | undefined,
): Promise<Record<string, unknown>> {
  const tokenDigest = digest(token)
  const now = deps.clock.now()
  const mayAsk = (clientId: string, audience: string) =>
    caller.kind === 'client' ? caller.clientId === clientId : caller.identifier === audience

  const access = async () => {
    const live = await deps.grants.findLiveAccessToken(tokenDigest, now)
    if (!live || !mayAsk(live.token.client_id, live.token.audience)) return undefined
    return {
      active: true,
      scope: live.token.scope
        .split(' ')
        .filter((s) => roleAllows(live.user.role, s))
        .join(' '),
      client_id: live.token.client_id,
      username: live.user.email,
      sub: live.user.id,
      aud: live.token.audience,
      iss: deps.issuer,
      exp: epochSeconds(live.token.expires_at),
      iat: epochSeconds(live.token.created_at),
      token_type: 'Bearer',
    }
  }
  const refresh = async () => {
    const row = await deps.grants.findRefreshToken(tokenDigest)
    if (!row || row.rotated_at !== null || row.expires_at <= now) return undefined
    const grant = await deps.grants.findGrant(row.grant_id)
    if (!grant || grant.revoked_at !== null || !mayAsk(row.client_id, grant.resource))
      return undefined
    const user = await deps.users.findById(grant.user_id)
    if (!user || !isActive(user)) return undefined
    return {
      active: true,
      scope: row.scope
        .split(' ')
        .filter((s) => roleAllows(user.role, s))
        .join(' '),
      client_id: row.client_id,
      username: user.email,
      sub: user.id,
      aud: grant.resource,
      iss: deps.issuer,
      exp: epochSeconds(row.expires_at),
      iat: epochSeconds(row.created_at),
      token_type: 'refresh_token',
    }
  }
  const found =
    hint === 'refresh_token'
      ? ((await refresh()) ?? (await access()))
      : ((await access()) ?? (await refresh()))
  return found ?? INACTIVE
}
