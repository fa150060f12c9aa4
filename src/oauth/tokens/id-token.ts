import { createHash } from 'node:crypto'
import { epochSeconds } from '../../platform/clock.js'
import type { KeyRing, SigningAlg } from '../keys.js'

/** What an ID token says, in Portico's terms; times in epoch milliseconds. */
export interface IdTokenInput {
  readonly issuer: string
  readonly clientId: string
  readonly userId: string
  readonly alg: SigningAlg
  /** When the person last authenticated. */
  readonly authTime: number
  readonly nonce: string | undefined
  /** The access token issued alongside, for `at_hash`. */
  readonly accessToken: string
  readonly now: number
  /** Lifetime in seconds. */
  readonly lifetime: number
}

/**
 * `at_hash` (OIDC Core §3.1.3.6): the left half of the hash of the access token's ASCII
 * octets, base64url-encoded. RS256 and ES256 both hash with SHA-256, so the left 16 bytes.
 */
export function atHash(accessToken: string): string {
  return createHash('sha256')
    .update(accessToken, 'ascii')
    .digest()
    .subarray(0, 16)
    .toString('base64url')
}

/**
 * Signs an ID token (OIDC Core §2) for the client: RS256 unless it registered ES256.
 * Profile and e-mail claims are left to userinfo, as OIDC Core §5.4 allows for the code flow.
 */
export function signIdToken(keys: Pick<KeyRing, 'sign'>, input: IdTokenInput): Promise<string> {
  const iat = epochSeconds(input.now)
  return keys.sign(
    {
      iss: input.issuer,
      sub: input.userId,
      aud: input.clientId,
      exp: iat + input.lifetime,
      iat,
      auth_time: epochSeconds(input.authTime),
      ...(input.nonce !== undefined && { nonce: input.nonce }),
      at_hash: atHash(input.accessToken),
    },
    input.alg,
  )
}
