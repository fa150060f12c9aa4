import { digest } from '../../platform/crypto.js'
import type { Client } from '../../storage/clients.js'
import type { TokenDeps } from '../grants/grant.js'
import { signIdToken } from './id-token.js'

/** What the token endpoint answers with, before it becomes wire JSON. */
export interface IssuedTokens {
  readonly accessToken: string
  readonly tokenType: 'Bearer'
  /** Seconds. */
  readonly expiresIn: number
  readonly scope: string
  readonly refreshToken: string | undefined
  readonly idToken: string | undefined
}

export interface IssueInput {
  readonly client: Client
  readonly grantId: string
  /** When the grant was approved: no refresh token outlives its absolute lifetime. */
  readonly grantCreatedAt: number
  readonly userId: string
  /** The access token's scope. */
  readonly scope: string
  /** The refresh token's scope: the grant's, even when the access token's is narrower. */
  readonly refreshScope: string
  /** The access token's audience: the resource the grant is for (RFC 8707). */
  readonly audience: string
  /** Set to issue an ID token too, when the scope includes `openid`. */
  readonly idToken?: { readonly authTime: number; readonly nonce: string | undefined }
  /** Digest of the refresh token this issuance replaces. */
  readonly rotates?: string
}

/**
 * When a grant approved at `createdAt` ends for good (`PORTICO_REFRESH_TOKEN_ABSOLUTE_TTL`):
 * rotation renews a refresh token's own lifetime, never beyond this.
 */
export function grantEnd(
  createdAt: number,
  lifetimes: Pick<TokenDeps['config']['lifetimes'], 'grantMaximum'>,
): number {
  return createdAt + lifetimes.grantMaximum * 1000
}

/**
 * Mints an opaque access token (stored only as its digest, so revocation takes effect on
 * the very next call), a refresh token when the client may refresh, and an ID token when
 * asked. The database write and the ID token signature run concurrently. Undefined when the
 * refresh token to replace was rotated by a concurrent request: nothing was stored.
 */
export async function issueTokens(
  deps: TokenDeps,
  input: IssueInput,
): Promise<IssuedTokens | undefined> {
  const now = deps.clock.now()
  const { lifetimes, issuer } = deps.config
  const { client } = input
  const accessToken = deps.random.token('pat')
  const refreshToken = client.grantTypes.includes('refresh_token')
    ? deps.random.token('prt')
    : undefined
  const idTokenFor = input.scope.split(' ').includes('openid') ? input.idToken : undefined

  const [stored, idToken] = await Promise.all([
    deps.grants.insertTokens(
      input.grantId,
      {
        token_digest: digest(accessToken),
        grant_id: input.grantId,
        client_id: client.clientId,
        user_id: input.userId,
        scope: input.scope,
        audience: input.audience,
        created_at: now,
        expires_at: now + lifetimes.accessToken * 1000,
      },
      refreshToken === undefined
        ? undefined
        : {
            token_digest: digest(refreshToken),
            grant_id: input.grantId,
            client_id: client.clientId,
            scope: input.refreshScope,
            created_at: now,
            expires_at: Math.min(
              now + lifetimes.refreshToken * 1000,
              grantEnd(input.grantCreatedAt, lifetimes),
            ),
            rotated_at: null,
          },
      now,
      input.rotates,
    ),
    idTokenFor
      ? signIdToken(deps.keys, {
          issuer,
          clientId: client.clientId,
          userId: input.userId,
          alg: client.idTokenSignedResponseAlg,
          authTime: idTokenFor.authTime,
          nonce: idTokenFor.nonce,
          accessToken,
          now,
          lifetime: lifetimes.idToken,
        })
      : undefined,
  ])
  if (!stored) return undefined
  return tokenAnswer(lifetimes, accessToken, input.scope, refreshToken, idToken)
}

/** The token endpoint's answer (RFC 6749 §5.1) of tokens issued and stored. */
export function tokenAnswer(
  lifetimes: Pick<TokenDeps['config']['lifetimes'], 'accessToken'>,
  accessToken: string,
  scope: string,
  refreshToken: string | undefined,
  idToken: string | undefined,
): IssuedTokens {
  return {
    accessToken,
    tokenType: 'Bearer',
    expiresIn: lifetimes.accessToken,
    scope,
    refreshToken,
    idToken,
  }
}
