import type { Clock } from '../platform/clock.js'
import { digest } from '../platform/crypto.js'
import type { Random } from '../platform/random.js'
import type { ResourceServer, ResourceServerStore } from '../storage/resource-servers.js'
import { OAuthError } from './errors.js'
import { mcpResourceOf } from './resource.js'

/**
 * Registers another API behind Portico: its identifier becomes a valid RFC 8707 `resource`,
 * and its credentials let it introspect the tokens issued for it (RFC 7662).
 * Returns the server and its secret, shown this once.
 */
export async function addResourceServer(
  deps: { resourceServers: ResourceServerStore; random: Random; clock: Clock; issuer: string },
  input: { identifier: string; name: string },
): Promise<{ server: ResourceServer; secret: string }> {
  const identifier = input.identifier.endsWith('/')
    ? input.identifier.slice(0, -1)
    : input.identifier
  let url: URL
  try {
    url = new URL(identifier)
  } catch {
    throw new OAuthError('invalid_request', 'the identifier must be an absolute URL')
  }
  const loopback =
    url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)
  if (url.protocol !== 'https:' && !loopback)
    throw new OAuthError('invalid_request', 'the identifier must be an https URL')
  if (url.hash || identifier.includes('#') || url.username || url.password) {
    throw new OAuthError(
      'invalid_request',
      'the identifier must not carry a fragment or user-info (RFC 8707 §2)',
    )
  }
  if (identifier === deps.issuer)
    throw new OAuthError('invalid_request', 'that identifier is Portico’s own API')
  if (identifier === mcpResourceOf(deps.issuer))
    throw new OAuthError('invalid_request', 'that identifier is Portico’s own MCP endpoint')
  const name = input.name.trim()
  if (name === '' || name.length > 100)
    throw new OAuthError('invalid_request', 'the name must be 1-100 characters')
  if (await deps.resourceServers.findByIdentifier(identifier)) {
    throw new OAuthError(
      'invalid_request',
      `a resource server with identifier ${identifier} exists already`,
    )
  }
  const secret = deps.random.token('prs')
  const server: ResourceServer = {
    id: deps.random.id('rs'),
    identifier,
    name,
    secretDigest: digest(secret),
    createdAt: deps.clock.now(),
  }
  await deps.resourceServers.insert(server)
  return { server, secret }
}
