import { digest } from '../../platform/crypto.js'
import type { Random } from '../../platform/random.js'
import type { GrantStore } from '../../storage/grants.js'
import type { AuthorizationParams } from './check-request.js'

export interface IssueCodeDeps {
  readonly grants: GrantStore
  readonly random: Random
  readonly codeLifetimeMs: number
  readonly refreshLifetimeMs: number
  /** The grant's absolute lifetime (`PORTICO_REFRESH_TOKEN_ABSOLUTE_TTL`). */
  readonly grantMaximumMs: number
}

/**
 * Records the person's approval as a grant and returns a single-use code bound to the
 * client, the exact redirect URI, the PKCE challenge, the granted scopes, the resource and
 * the nonce. Only the code's digest is stored.
 */
export async function issueCode(
  deps: IssueCodeDeps,
  input: {
    params: AuthorizationParams
    userId: string
    grantedScopes: readonly string[]
    authTime: number
    now: number
  },
): Promise<string> {
  const { params, now } = input
  const code = deps.random.token('pac')
  const grantId = deps.random.id('grt')
  const scope = input.grantedScopes.join(' ')
  await deps.grants.insertGrantWithCode(
    {
      id: grantId,
      client_id: params.clientId,
      user_id: input.userId,
      scope,
      resource: params.resource,
      created_at: now,
      last_used_at: null,
      expires_at:
        now + Math.max(deps.codeLifetimeMs, Math.min(deps.refreshLifetimeMs, deps.grantMaximumMs)),
      revoked_at: null,
      redirect_uri: params.redirectUri,
    },
    {
      code_digest: digest(code),
      grant_id: grantId,
      client_id: params.clientId,
      user_id: input.userId,
      redirect_uri: params.redirectUri,
      code_challenge: params.codeChallenge,
      scope,
      resource: params.resource,
      nonce: params.nonce ?? null,
      auth_time: input.authTime,
      created_at: now,
      expires_at: now + deps.codeLifetimeMs,
      consumed_at: null,
    },
  )
  return code
}
