import { epochSeconds } from '../platform/clock.js'
import type { User } from '../storage/users.js'

/**
 * The identity scopes (OIDC Core §5.4) and exactly what each releases: the words the consent
 * page shows for the scope, and the claims userinfo answers with under it. One table, so
 * the page cannot promise less than is released: a claim is added here, with the words
 * that name it, or it is not released at all. No claim of `profile` carries the e-mail
 * address; only `email` does.
 */
export const IDENTITY_SCOPES = {
  openid: {
    label: 'Confirm that it is you (your account identifier)',
    claims: (user: User) => ({ sub: user.id }),
  },
  profile: {
    label: 'Your name, your profile picture, and when you last changed your profile',
    claims: (user: User) => ({
      name: user.name,
      ...(user.avatarUrl !== undefined && { picture: user.avatarUrl }),
      updated_at: epochSeconds(user.updatedAt),
    }),
  },
  email: {
    label: 'Your e-mail address',
    claims: (user: User) => ({
      email: user.email,
      // Accounts are created by the school for a known address; there is no unverified state.
      email_verified: true,
    }),
  },
} as const satisfies Record<
  string,
  { readonly label: string; readonly claims: (user: User) => Record<string, unknown> }
>

export type IdentityScope = keyof typeof IDENTITY_SCOPES

export function isIdentityScope(scope: string): scope is IdentityScope {
  return Object.hasOwn(IDENTITY_SCOPES, scope)
}

/** The claims the granted scopes name, and nothing else: `sub` comes with `openid`. */
export function identityClaims(user: User, scopes: ReadonlySet<string>): Record<string, unknown> {
  let claims: Record<string, unknown> = {}
  for (const [scope, { claims: of }] of Object.entries(IDENTITY_SCOPES))
    if (scopes.has(scope)) claims = { ...claims, ...of(user) }
  return claims
}
