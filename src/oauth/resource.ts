import type { ResourceServerStore } from '../storage/resource-servers.js'
import { OAuthError } from './errors.js'

/**
 * Resolves an RFC 8707 `resource` value to the audience a token will carry: Portico's own
 * API (the issuer; a trailing slash names the same identifier) or an API an operator
 * registered. Absent means Portico's API. Anything else is `invalid_target`.
 */
export async function resolveResource(
  value: string | undefined,
  issuer: string,
  resourceServers: ResourceServerStore,
): Promise<string> {
  if (value === undefined) return issuer
  const trimmed = value.endsWith('/') ? value.slice(0, -1) : value
  if (trimmed === issuer) return issuer
  const registered =
    (await resourceServers.findByIdentifier(value)) ??
    (await resourceServers.findByIdentifier(trimmed))
  if (registered) return registered.identifier
  throw new OAuthError(
    'invalid_target',
    "resource must be this server's API identifier or an API registered with it (RFC 8707)",
  )
}
