import type { Config } from '../../config.js'
import type { Clock } from '../../platform/clock.js'
import type { Random } from '../../platform/random.js'
import type { Client, ClientStore } from '../../storage/clients.js'
import type { RefreshGrant } from '../../storage/grant-tokens.js'
import type { GrantStore } from '../../storage/grants.js'
import type { ResourceServerStore } from '../../storage/resource-servers.js'
import { OAuthError } from '../errors.js'
import type { KeyRing } from '../keys.js'
import type { IssuedTokens } from '../tokens/issue-tokens.js'

/**
 * The token request's parameters as sent: each present at most once, and a parameter sent
 * without a value counts as absent (RFC 6749 §3.1).
 */
export type TokenParams = Readonly<Record<string, string | undefined>>

/** What the token endpoint's core needs; the app's dependencies satisfy it. */
export interface TokenDeps {
  readonly config: Pick<Config, 'issuer' | 'lifetimes'>
  readonly clock: Clock
  readonly random: Random
  /** Finds clients by id, metadata-document URLs included (client-id-metadata/resolve-client.ts). */
  readonly clients: Pick<ClientStore, 'find'>
  readonly grants: GrantStore
  readonly keys: Pick<KeyRing, 'sign'>
  readonly resourceServers: ResourceServerStore
}

/** What the token endpoint read along with the client: the presented refresh token's row. */
export interface Prefetched {
  /** The SHA-256 digest of the presented `refresh_token` the row was read by. */
  readonly refreshDigest: string
  readonly refresh: RefreshGrant | undefined
}

/** One grant type of the token endpoint (RFC 6749 §4, §6). */
export interface GrantHandler {
  /** The `grant_type` value. */
  readonly type: string
  /** Runs the grant for an authenticated client that is registered for it. */
  handle(
    deps: TokenDeps,
    client: Client,
    params: TokenParams,
    prefetched?: Prefetched,
  ): Promise<IssuedTokens>
}

/** Why a grant was refused; logged, while the client sees a deliberately vague description. */
export type RefusalReason =
  | 'unknown_code'
  | 'code_replayed'
  | 'code_expired'
  | 'code_client_mismatch'
  | 'redirect_uri_mismatch'
  | 'malformed_code_verifier'
  | 'code_verifier_mismatch'
  | 'unknown_refresh_token'
  | 'refresh_client_mismatch'
  | 'refresh_token_expired'
  | 'refresh_token_reused'
  | 'refresh_token_concurrent'
  | 'grant_revoked'
  | 'user_inactive'

/** `invalid_grant` (RFC 6749 §5.2) carrying the exact reason for the log. */
export class GrantRefused extends OAuthError {
  override name = 'GrantRefused'
  readonly reason: RefusalReason

  constructor(reason: RefusalReason, description: string) {
    super('invalid_grant', description)
    this.reason = reason
  }
}

/** A parameter the grant requires; absent is `invalid_request`. */
export function requireParam(params: TokenParams, name: string): string {
  const value = params[name]
  if (value === undefined) throw new OAuthError('invalid_request', `${name} is required`)
  return value
}
