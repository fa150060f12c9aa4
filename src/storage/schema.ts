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
