import { hiddenCharacter } from '../../platform/visible-text.js'
import { OAuthError } from '../errors.js'
import { isKnownScope, parseScope } from '../scopes.js'
import { isAllowedLoopbackUri, LOOPBACK_RULE, type LoopbackOptions } from './check-redirect-uri.js'
import { checkStoredMetadataSize } from './metadata-size.js'

/** The client metadata Portico honours (RFC 7591 §2), validated and with defaults applied. */
export interface ClientMetadata {
  readonly redirectUris: readonly string[]
  readonly tokenEndpointAuthMethod: 'none' | 'client_secret_post'
  readonly applicationType: 'native'
  readonly grantTypes: readonly ('authorization_code' | 'refresh_token')[]
  readonly responseTypes: readonly 'code'[]
  readonly clientName: string | undefined
  readonly scope: string | undefined
  readonly idTokenSignedResponseAlg: 'RS256' | 'ES256'
}

const MAX_REDIRECT_URIS = 10
const MAX_NAME_LENGTH = 100
const GRANT_TYPES = ['authorization_code', 'refresh_token'] as const

/**
 * Checks a self-service registration request. Unknown fields are ignored (RFC 7591 §2) and
 * never echoed; every known field must have the right type and an accepted value.
 */
export function checkClientMetadata(body: unknown, options: LoopbackOptions): ClientMetadata {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid('the request body must be a JSON object')
  }
  const input = body as Record<string, unknown>

  const redirectUris = redirectUriList(input.redirect_uris, options)

  const grantTypes = oneOfArray(input, 'grant_types', GRANT_TYPES) ?? [
    'authorization_code',
    'refresh_token',
  ]
  if (!grantTypes.includes('authorization_code')) {
    throw invalid('grant_types must include authorization_code, the only way to obtain tokens here')
  }
  const responseTypes = oneOfArray(input, 'response_types', ['code'] as const) ?? ['code']

  return checkStoredMetadataSize({
    redirectUris,
    tokenEndpointAuthMethod:
      oneOf(input, 'token_endpoint_auth_method', ['none', 'client_secret_post'] as const) ?? 'none',
    applicationType: applicationType(input),
    grantTypes,
    responseTypes,
    clientName: clientName(input),
    scope: scope(input),
    idTokenSignedResponseAlg:
      oneOf(input, 'id_token_signed_response_alg', ['RS256', 'ES256'] as const) ?? 'RS256',
  })
}

/**
 * `application_type` (OpenID Connect Dynamic Client Registration 1.0 §2), which MCP
 * 2026-07-28 requires clients to send: self-service registration is for native apps (the
 * person's own machine, loopback redirect URIs), so only `native` is taken; absent, it is
 * `native` too, since no other kind could register here. A web application (a remote
 * browser-based one, HTTPS callbacks) is told where its registration is made instead.
 */
function applicationType(input: Record<string, unknown>): 'native' {
  if (input.application_type === 'web')
    throw invalid(
      'application_type "web" cannot register itself here: self-service registration is for native apps with loopback redirect URIs; a web application with HTTPS callbacks is registered by the school\'s operator (portico integrations create) or identifies itself by a Client ID Metadata Document',
    )
  return oneOf(input, 'application_type', ['native'] as const) ?? 'native'
}

function invalid(description: string): OAuthError {
  return new OAuthError('invalid_client_metadata', description)
}

/** Quotes a rejected value for the error message, shortened and safe to print. */
function describe(value: string): string {
  const shown = value.length > 80 ? `${value.slice(0, 80)}…` : value
  return JSON.stringify(shown)
}

/** `redirect_uris`: every entry that is not an accepted loopback URI is invalid_redirect_uri. */
function redirectUriList(value: unknown, options: LoopbackOptions): string[] {
  if (value === undefined) throw invalid('redirect_uris is required')
  if (!Array.isArray(value)) throw invalid('redirect_uris must be an array of strings')
  if (value.length === 0) throw invalid('redirect_uris must not be empty')
  if (value.length > MAX_REDIRECT_URIS) throw invalid(`at most ${MAX_REDIRECT_URIS} redirect_uris`)
  for (const uri of value) {
    if (typeof uri !== 'string') {
      throw new OAuthError(
        'invalid_redirect_uri',
        `every redirect URI must be a string: ${LOOPBACK_RULE}`,
      )
    }
    if (!isAllowedLoopbackUri(uri, options)) {
      throw new OAuthError('invalid_redirect_uri', `${describe(uri)} refused: ${LOOPBACK_RULE}`)
    }
  }
  const uris = value as string[]
  if (new Set(uris).size !== uris.length) throw invalid('redirect_uris has duplicates')
  return uris
}

function stringArray(input: Record<string, unknown>, key: string): string[] | undefined {
  const value = input[key]
  if (value === undefined) return undefined
  if (!Array.isArray(value)) throw invalid(`${key} must be an array of strings`)
  if (value.length === 0) throw invalid(`${key} must not be empty`)
  if (!value.every((v): v is string => typeof v === 'string'))
    throw invalid(`${key} must be an array of strings`)
  return value
}

function oneOf<T extends string>(
  input: Record<string, unknown>,
  key: string,
  allowed: readonly T[],
): T | undefined {
  const value = input[key]
  if (value === undefined) return undefined
  if (typeof value !== 'string') throw invalid(`${key} must be a string`)
  const found = allowed.find((a) => a === value)
  if (!found) throw invalid(`${key} must be ${allowed.map((a) => `"${a}"`).join(' or ')}`)
  return found
}

function oneOfArray<T extends string>(
  input: Record<string, unknown>,
  key: string,
  allowed: readonly T[],
): T[] | undefined {
  const values = stringArray(input, key)
  if (values === undefined) return undefined
  const result: T[] = []
  for (const value of values) {
    const found = allowed.find((a) => a === value)
    if (!found) throw invalid(`${key} may contain only ${allowed.map((a) => `"${a}"`).join(', ')}`)
    if (!result.includes(found)) result.push(found)
  }
  return result
}

function clientName(input: Record<string, unknown>): string | undefined {
  const value = input.client_name
  if (value === undefined) return undefined
  if (typeof value !== 'string') throw invalid('client_name must be a string')
  const name = value.trim()
  if (name === '') throw invalid('client_name must not be blank')
  if ([...name].length > MAX_NAME_LENGTH)
    throw invalid(`client_name must be at most ${MAX_NAME_LENGTH} characters`)
  // Control, format (bidi, zero-width) and separator characters could disguise the name.
  const hidden = hiddenCharacter(name)
  if (hidden)
    throw invalid(
      `client_name must not contain invisible or formatting characters (found ${hidden})`,
    )
  return name
}

function scope(input: Record<string, unknown>): string | undefined {
  const value = input.scope
  if (value === undefined) return undefined
  if (typeof value !== 'string') throw invalid('scope must be a space-separated string')
  const scopes = parseScope(value)
  if (!scopes || scopes.length === 0)
    throw invalid('scope must be a space-separated list of scopes')
  const unknown = scopes.filter((s) => !isKnownScope(s))
  if (unknown.length > 0)
    throw invalid(`unknown scope ${describe(unknown[0] ?? '')}; see scopes_supported`)
  return scopes.join(' ')
}
