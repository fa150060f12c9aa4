/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document §3): a
 * `client_id` that is an `https:` URL names a JSON document describing the client. The
 * string is judged as sent, because a URL parser silently rewrites what it does not like
 * (it removes `..`, lower-cases the host, drops `:443`): what is fetched must be exactly
 * what was presented. Portico's own client ids start with `pci_`, so the kinds never collide.
 */

const MAX_LENGTH = 2000

/** Whether a `client_id` claims to be a metadata-document URL (and must then be one). */
export function looksLikeClientIdUrl(clientId: string): boolean {
  return clientId.slice(0, 8).toLowerCase() === 'https://'
}

/**
 * Why `clientId` is not an acceptable metadata-document URL, or undefined when it is:
 * `https` scheme, a path, no fragment, no user-info, no dot segments in any spelling,
 * printable ASCII, and written in the canonical form the URL parser would give it.
 */
export function clientIdUrlProblem(clientId: string): string | undefined {
  if (!clientId.startsWith('https://')) return 'client_id URL must start with https://'
  if (clientId.length > MAX_LENGTH) return `client_id URL longer than ${MAX_LENGTH} characters`
  if (!/^[\x21-\x7e]+$/.test(clientId)) return 'client_id URL must be printable ASCII'
  if (clientId.includes('#')) return 'client_id URL must not have a fragment'
  if (clientId.includes('\\')) return 'client_id URL must not contain a backslash'
  const rest = clientId.slice('https://'.length)
  const authorityEnd = rest.search(/[/?]/)
  const authority = authorityEnd === -1 ? rest : rest.slice(0, authorityEnd)
  if (authority.includes('@')) return 'client_id URL must not carry user-info'
  if (authorityEnd === -1 || rest[authorityEnd] !== '/') return 'client_id URL must have a path'
  const afterAuthority = rest.slice(authorityEnd)
  const queryStart = afterAuthority.indexOf('?')
  const path = queryStart === -1 ? afterAuthority : afterAuthority.slice(0, queryStart)
  if (path === '/') return 'client_id URL must have a path'
  const dotSegment = path.split('/').some((segment) => /^(?:\.|%2e){1,2}$/i.test(segment))
  if (dotSegment) return 'client_id URL must not contain dot segments'
  let url: URL
  try {
    url = new URL(clientId)
  } catch {
    return 'client_id URL does not parse'
  }
  if (url.username !== '' || url.password !== '') return 'client_id URL must not carry user-info'
  if (url.href !== clientId) return 'client_id URL must be written in canonical form'
  return undefined
}
