import type { ColumnType } from 'kysely'

/** The tables of the authorization server: keys, clients, people, requests, grants and tokens. */

export interface SigningKeyTable {
  kid: string
  alg: 'RS256' | 'ES256'
  public_jwk: string
  /** The private JWK, AES-256-GCM encrypted with the key-encryption key. */
  private_jwk_sealed: string
  created_at: number
  retired_at: number | null
}

export interface ClientTable {
  client_id: string
  /** `metadata_document`: the client_id is the URL of a Client ID Metadata Document. */
  kind: 'self_registered' | 'integration' | 'metadata_document'
  client_name: string | null
  secret_digest: string | null
  token_endpoint_auth_method: 'none' | 'client_secret_post'
  application_type: string
  redirect_uris: string
  grant_types: string
  response_types: string
  scope: string | null
  id_token_signed_response_alg: 'RS256' | 'ES256'
  created_at: number
  last_used_at: number | null
}

export interface UserTable {
  id: string
  /** Lower-cased; unique. */
  email: string
  name: string
  /** argon2id PHC string. */
  password_hash: string
  role: 'owner' | 'admin' | 'editor' | 'lecturer' | 'teaching_assistant' | 'student'
  locale: string | null
  timezone: string | null
  avatar_url: string | null
  bio: string | null
  notification_preferences: string | null
  created_at: number
  updated_at: number
  disabled_at: number | null
}

/**
 * Columns migration 0003 added to `users` for the members resource, read and written only
 * through it (src/api/people/members.resource.ts): `status` defaults to `active`, and `suspended`
 * goes with `disabled_at`.
 */
export interface UserTeamColumns {
  status: 'active' | 'invited' | 'suspended'
  invited_at: number | null
  invited_by: string | null
}

/**
 * `users.status` as the storage layer reads it: only an `active` person who is not disabled
 * signs in, redeems a code, refreshes or holds a live token (see `isActive` in users.ts).
 * Optional on insert, where it defaults to `active`.
 */
export interface UserStatusColumn {
  status: ColumnType<
    UserTeamColumns['status'],
    UserTeamColumns['status'] | undefined,
    UserTeamColumns['status']
  >
}

export interface AuthorizationRequestTable {
  id_digest: string
  client_id: string
  /** The validated authorization parameters, JSON. */
  params: string
  /** Digest of the cookie that ties the request to the browser that began it. */
  browser_digest: string
  /** Digest of the consent form's CSRF token. */
  csrf_digest: string
  session_digest: string | null
  /** Digest of the client address, for requests of browsers not signed in (capped per address). */
  address_digest: string | null
  created_at: number
  expires_at: number
  consumed_at: number | null
}

export interface GrantTable {
  id: string
  client_id: string
  user_id: string
  scope: string
  resource: string
  created_at: number
  last_used_at: number | null
  /** When the last refresh token of the grant expires. */
  expires_at: number
  revoked_at: number | null
  /** The redirect URI of the authorization that created the grant; null for older grants. */
  redirect_uri?: string | null
}

/** A Client ID Metadata Document URL an operator reviewed: its https callbacks are allowed. */
export interface TrustedClientDocumentTable {
  url: string
  created_at: number
}

export interface AuthorizationCodeTable {
  code_digest: string
  grant_id: string
  client_id: string
  user_id: string
  redirect_uri: string
  code_challenge: string
  scope: string
  resource: string
  nonce: string | null
  auth_time: number
  created_at: number
  expires_at: number
  consumed_at: number | null
}

export interface RefreshTokenTable {
  token_digest: string
  grant_id: string
  client_id: string
  scope: string
  created_at: number
  expires_at: number
  rotated_at: number | null
}

export interface AccessTokenTable {
  token_digest: string
  grant_id: string
  client_id: string
  user_id: string
  scope: string
  audience: string
  created_at: number
  expires_at: number
}
