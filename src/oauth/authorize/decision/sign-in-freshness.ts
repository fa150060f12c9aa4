import type { AuthorizationParams } from '../check-request.js'

/** What the freshness of a sign-in is judged on; times in milliseconds since the epoch. */
export interface SignInAge {
  /** When the person last proved who they are (the session's `auth_time`). */
  readonly authTime: number
  readonly now: number
  /**
   * When the pending authorization request was stored, if it is being continued; a sign-in
   * at or after that moment was made for this very request. Absent for a request just
   * arriving, for which no sign-in can have been made yet.
   */
  readonly requestCreatedAt?: number | undefined
}

/**
 * Whether a sign-in satisfies a request's `prompt=login` and `max_age` (OpenID Connect Core
 * 1.0 §3.1.2.1). The one rule, for a request arriving and for one being continued:
 * - a sign-in made for this very request satisfies both, however long the person then took;
 * - otherwise `prompt=login` always asks for a new sign-in;
 * - `max_age=0` is `prompt=login` (the note to §3.1.2.1 of errata set 2);
 * - otherwise the sign-in is recent enough while `auth_time + max_age >= now`.
 */
export function signInIsFresh(
  age: SignInAge,
  params: Pick<AuthorizationParams, 'prompt' | 'maxAge'>,
): boolean {
  if (age.requestCreatedAt !== undefined && age.authTime >= age.requestCreatedAt) return true
  if (params.prompt.includes('login')) return false
  if (params.maxAge === undefined) return true
  if (params.maxAge === 0) return false
  return age.authTime + params.maxAge * 1000 >= age.now
}
