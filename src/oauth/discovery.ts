import { SIGNING_ALGS } from './keys.js'
import { ALL_SCOPES } from './scopes.js'

/** Endpoints that discovery may advertise, by their RFC 8414 / OIDC metadata name. */
export type AdvertisedEndpoint =
  | 'registration_endpoint'
  | 'authorization_endpoint'
  | 'token_endpoint'
  | 'userinfo_endpoint'
  | 'revocation_endpoint'
  | 'introspection_endpoint'
  | 'jwks_uri'

type Endpoints = Readonly<Partial<Record<AdvertisedEndpoint, string>>>

/** Optional capabilities the metadata advertises when they are switched on. */
export interface Features {
  /** https client ids naming a Client ID Metadata Document are accepted. */
  readonly clientIdMetadataDocuments: boolean
}

/** Claims Portico can put in ID tokens and userinfo answers. */
export const CLAIMS_SUPPORTED = [
  'sub',
  'iss',
  'aud',
  'exp',
  'iat',
  'auth_time',
  'nonce',
  'at_hash',
  'name',
  'picture',
  'updated_at',
  'email',
  'email_verified',
] as const

/**
 * The authorization server's metadata, served unchanged at both
 * `/.well-known/oauth-authorization-server` (RFC 8414 §3) and
 * `/.well-known/openid-configuration` (OpenID Connect Discovery 1.0 §4). One document, so
 * the two cannot drift: the specification makes the RFC 8414 document the source of truth,
 * and a client that reads only it must find what it needs to validate ID tokens
 * (`id_token_signing_alg_values_supported`, `subject_types_supported`, `claims_supported`,
 * `userinfo_endpoint`), all of them registered RFC 8414 metadata (RFC 8414 §7.1.2).
 *
 * Each capability is listed only when the endpoint that provides it is registered, so the
 * document cannot promise what is absent.
 */
export function serverMetadata(
  issuer: string,
  endpoints: Endpoints,
  features: Features = { clientIdMetadataDocuments: false },
): Record<string, unknown> {
  const hasAuthorize = endpoints.authorization_endpoint !== undefined
  const hasToken = endpoints.token_endpoint !== undefined
  return {
    issuer,
    ...endpoints,
    scopes_supported: ALL_SCOPES,
    ...(hasAuthorize && {
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      // draft-ietf-oauth-client-id-metadata-document §5: a server that supports it MUST say so.
      ...(features.clientIdMetadataDocuments && { client_id_metadata_document_supported: true }),
    }),
    ...(hasToken && {
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_post'],
    }),
    ...(endpoints.revocation_endpoint && {
      revocation_endpoint_auth_methods_supported: ['none', 'client_secret_post'],
    }),
    ...(endpoints.introspection_endpoint && {
      introspection_endpoint_auth_methods_supported: ['none', 'client_secret_post'],
    }),
    service_documentation: `${issuer}/docs`,
    // OpenID Connect Discovery 1.0 §3, in both documents.
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: SIGNING_ALGS,
    claims_supported: CLAIMS_SUPPORTED,
    claims_parameter_supported: false,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
  }
}

/**
 * Protected resource metadata (RFC 9728 §2) for the school's API. Its identifier is the
 * issuer: the metadata is served at the root well-known path, which RFC 9728 §3.3 ties to
 * an identifier without a path.
 */
export function protectedResourceMetadata(issuer: string): Record<string, unknown> {
  return {
    resource: issuer,
    authorization_servers: [issuer],
    scopes_supported: ALL_SCOPES,
    bearer_methods_supported: ['header'],
    resource_name: 'Portico school API',
    resource_documentation: `${issuer}/docs`,
  }
}

/**
 * Protected resource metadata (RFC 9728 §2) of the MCP endpoint, served at
 * `/.well-known/oauth-protected-resource/mcp` as RFC 9728 §3.1 derives it from the
 * identifier `<issuer>/mcp`. Tokens for it are asked with `resource=<issuer>/mcp`.
 */
export function mcpProtectedResourceMetadata(issuer: string): Record<string, unknown> {
  return {
    resource: `${issuer}/mcp`,
    authorization_servers: [issuer],
    scopes_supported: ALL_SCOPES,
    bearer_methods_supported: ['header'],
    resource_name: 'Portico school (MCP)',
    resource_documentation: `${issuer}/docs`,
  }
}
