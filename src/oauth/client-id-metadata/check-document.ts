import { hiddenCharacter } from '../../platform/visible-text.js'
import {
  isAllowedIntegrationUri,
  isAllowedLoopbackUri,
  isAllowedPortlessLoopbackUri,
  type LoopbackOptions,
} from '../registration/check-redirect-uri.js'

/**
 * The rules a Client ID Metadata Document must satisfy before Portico treats it as a client
 * (draft-ietf-oauth-client-id-metadata-document §4.1, RFC 7591 §2 for the fields). Unknown
 * fields and grant types Portico does not offer are ignored, as real documents carry both;
 * anything that would make the client confidential refuses the document, since a URL anyone
 * can read cannot hold a secret.
 */

/** What Portico takes from a valid document. */
export interface MetadataDocument {
  readonly clientName: string | undefined
  readonly redirectUris: readonly string[]
  readonly grantTypes: readonly ('authorization_code' | 'refresh_token')[]
  readonly idTokenSignedResponseAlg: 'RS256' | 'ES256'
}

export type DocumentCheck =
  | { readonly ok: true; readonly document: MetadataDocument }
  | { readonly ok: false; readonly reason: string }

export interface DocumentRules extends LoopbackOptions {
  /** The operator trusts this document's URL: its https callbacks are allowed too. */
  readonly trusted: boolean
}

const MAX_REDIRECT_URIS = 20
const MAX_NAME_LENGTH = 100
const OFFERED_GRANTS = ['authorization_code', 'refresh_token'] as const
/** Members of a JWK that only a private or symmetric key has (RFC 7517, RFC 7518 §6). */
const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k']

/** Checks the body of a document fetched from `url`. */
export function checkMetadataDocument(
  body: string,
  url: string,
  rules: DocumentRules,
): DocumentCheck {
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    return refused('the document is not valid JSON')
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return refused('the document is not a JSON object')
  const doc = parsed as Record<string, unknown>

  // §4.1: the client_id in the document MUST equal the URL it was fetched from, exactly.
  if (doc.client_id !== url) return refused('client_id in the document differs from its URL')

  const method = doc.token_endpoint_auth_method
  if (method !== undefined && method !== 'none')
    return refused('token_endpoint_auth_method must be absent or none')
  if (doc.client_secret !== undefined || doc.client_secret_expires_at !== undefined)
    return refused('the document carries a client secret')
  if (hasPrivateKeyMaterial(doc.jwks)) return refused('the document carries private key material')

  const redirectUris = doc.redirect_uris
  if (!Array.isArray(redirectUris) || redirectUris.length === 0)
    return refused('redirect_uris must be a non-empty array')
  if (redirectUris.length > MAX_REDIRECT_URIS)
    return refused(`at most ${MAX_REDIRECT_URIS} redirect_uris`)
  for (const uri of redirectUris) {
    if (typeof uri !== 'string') return refused('every redirect URI must be a string')
    if (!redirectUriAllowed(uri, rules))
      return refused(
        rules.trusted || !uri.startsWith('https://')
          ? 'a redirect URI is neither a loopback callback nor an https URL in canonical form'
          : 'an https redirect URI needs the operator to trust this document (portico integrations trust)',
      )
  }

  const grants = grantTypes(doc.grant_types)
  if (typeof grants === 'string') return refused(grants)
  const responseTypes = doc.response_types
  if (
    responseTypes !== undefined &&
    !(Array.isArray(responseTypes) && responseTypes.includes('code'))
  )
    return refused('response_types must include code')

  const name = clientName(doc.client_name)
  if (name === null) return refused('client_name must be 1-100 visible characters')

  const alg = doc.id_token_signed_response_alg
  return {
    ok: true,
    document: {
      clientName: name,
      redirectUris: [...new Set(redirectUris as string[])],
      grantTypes: grants,
      idTokenSignedResponseAlg: alg === 'ES256' ? 'ES256' : 'RS256',
    },
  }
}

function refused(reason: string): DocumentCheck {
  return { ok: false, reason }
}

function redirectUriAllowed(uri: string, rules: DocumentRules): boolean {
  if (isAllowedLoopbackUri(uri, rules) || isAllowedPortlessLoopbackUri(uri, rules)) return true
  return rules.trusted && uri.startsWith('https://') && isAllowedIntegrationUri(uri)
}

/** The offered grant types the document lists (default both); others are ignored. */
function grantTypes(value: unknown): MetadataDocument['grantTypes'] | string {
  if (value === undefined) return [...OFFERED_GRANTS]
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
    return 'grant_types must be an array of strings'
  const offered = OFFERED_GRANTS.filter((g) => value.includes(g))
  if (!offered.includes('authorization_code')) return 'grant_types must include authorization_code'
  return offered
}

/** The trimmed name; undefined when absent; null when unusable on a consent page. */
function clientName(value: unknown): string | undefined | null {
  if (value === undefined) return undefined
  if (typeof value !== 'string') return null
  const name = value.trim()
  if (name === '' || [...name].length > MAX_NAME_LENGTH) return null
  // Invisible and formatting characters could disguise the name (src/platform/visible-text.ts).
  if (hiddenCharacter(name) !== undefined) return null
  return name
}

function hasPrivateKeyMaterial(jwks: unknown): boolean {
  if (jwks === undefined) return false
  const keys = (jwks as { keys?: unknown } | null)?.keys
  if (!Array.isArray(keys)) return false
  return keys.some(
    (key) =>
      typeof key === 'object' &&
      key !== null &&
      PRIVATE_JWK_MEMBERS.some((member) => member in (key as Record<string, unknown>)),
  )
}
