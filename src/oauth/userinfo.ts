import type { User } from '../storage/users.js'

/** The scope a token needs for userinfo (OIDC Core §5.3). */
export const USERINFO_SCOPE = 'openid'

/**
 * The claims userinfo returns for a person, by granted scope (OIDC Core §5.4): `sub`
 * always; `name`, `preferred_username`, `picture` and `updated_at` with `profile`; `email`
 * and `email_verified` with `email`. Times are seconds since the epoch.
 */
export function userinfoClaims(user: User, scopes: ReadonlySet<string>): Record<string, unknown> {
  return {
    sub: user.id,
    ...(scopes.has('profile') && {
      name: user.name,
      preferred_username: user.email,
      ...(user.avatarUrl !== undefined && { picture: user.avatarUrl }),
      updated_at: Math.floor(user.updatedAt / 1000),
    }),
    ...(scopes.has('email') && {
      email: user.email,
      // Accounts are created by the school for a known address; there is no unverified state.
      email_verified: true,
    }),
  }
}
