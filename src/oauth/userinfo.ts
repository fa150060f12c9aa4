import type { User } from '../storage/users.js'
import { identityClaims } from './identity-claims.js'

/** The scope a token needs for userinfo (OIDC Core §5.3). */
export const USERINFO_SCOPE = 'openid'

/**
 * The claims userinfo returns for a person (OIDC Core §5.3.2): `sub` always, then exactly
 * what the granted scopes name in `IDENTITY_SCOPES` (identity-claims.ts), the table the
 * consent page takes its words from: `name`, `picture` and `updated_at` with `profile`;
 * `email` and `email_verified` with `email`. Times are seconds since the epoch.
 */
export function userinfoClaims(user: User, scopes: ReadonlySet<string>): Record<string, unknown> {
  return { ...identityClaims(user, scopes), sub: user.id }
}
