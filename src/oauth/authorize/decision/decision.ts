/**
 * What the authorization endpoint does with a request:
 * - `login`: send the person to sign in (first, or again), the request kept pending;
 * - `consent`: show the consent page to the signed-in person;
 * - `approve`: issue a code for `scopes` now, nobody asked;
 * - `refuse`: send `error` back to the client (its redirect URI is known good by then).
 */
export type AuthorizationDecision =
  | { readonly kind: 'login' }
  | { readonly kind: 'consent' }
  | { readonly kind: 'approve'; readonly scopes: readonly string[] }
  | Refusal

/** An error sent back to the client instead of a code. */
export interface Refusal {
  readonly kind: 'refuse'
  readonly error: RefusalCode
  readonly description: string
}

/** The OAuth and OpenID Connect errors the decision itself can answer. */
export type RefusalCode = 'login_required' | 'consent_required' | 'access_denied' | 'invalid_scope'

export function refuse(error: RefusalCode, description: string): Refusal {
  return { kind: 'refuse', error, description }
}
