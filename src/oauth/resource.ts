import type { ResourceServerStore } from '../storage/resource-servers.js'
import { OAuthError } from './errors.js'

/** The identifier of Portico's MCP endpoint as a protected resource: `<issuer>/mcp`. */
export const mcpResourceOf = (issuer: string): string => `${issuer}/mcp`

/**
 * Resolves an RFC 8707 `resource` value to the audience a token will carry: Portico's own
 * API (the issuer), its MCP endpoint (`<issuer>/mcp`; for both a trailing slash names the
 * same identifier) or an API an operator registered. Absent means Portico's API. Anything
 * else is `invalid_target`.
 */
export async function resolveResource(
  value: string | undefined,
  issuer: string,
  resourceServers: ResourceServerStore,
): Promise<string> {
  if (value === undefined) return issuer
  const trimmed = value.endsWith('/') ? value.slice(0, -1) : value
  if (trimmed === issuer) return issuer
  if (trimmed === mcpResourceOf(issuer)) return mcpResourceOf(issuer)
  const registered =
    (await resourceServers.findByIdentifier(value)) ??
    (await resourceServers.findByIdentifier(trimmed))
  if (registered) return registered.identifier
  throw new OAuthError(
    'invalid_target',
    "resource must be this server's API or MCP identifier, or an API registered with it (RFC 8707)",
  )
}
