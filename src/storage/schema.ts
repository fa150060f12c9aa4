import type { Kysely } from 'kysely'

/**
 * The tables, as Kysely sees them. Times are epoch milliseconds; lists and objects are JSON
 * text; every server-made secret is stored only as its SHA-256 digest (`*_digest`).
 * docs/storage.md describes them for operators.
 */
export interface Schema {
  portico_migrations: { id: string; applied_at: number }
  signing_keys: SigningKeyTable
  clients: ClientTable
  rate_limits: { key: string; window_start: number; count: number }
  school: { id: string; name: string; created_at: number; updated_at: number }
  users: UserTable
  sessions: {
    id_digest: string
    user_id: string
    auth_time: number
    created_at: number
    expires_at: number
  }
  authorization_requests: AuthorizationRequestTable
  grants: GrantTable
  authorization_codes: AuthorizationCodeTable
  refresh_tokens: RefreshTokenTable
  access_tokens: AccessTokenTable
  consents: {
    user_id: string
    client_id: string
    scope: string
    resource: string
    created_at: number
  }
  resource_servers: {
    id: string
    identifier: string
    name: string
    secret_digest: string
    created_at: number
  }
}

export type Db = Kysely<Schema>

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
  kind: 'self_registered' | 'integration'
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
