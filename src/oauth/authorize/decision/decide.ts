import type { Client } from '../../../storage/clients.js'
import type { Role } from '../../roles.js'
import type { AuthorizationParams } from '../check-request.js'
import type { AuthorizationDecision } from './decision.js'
import { demandsConsent, forbidsInteraction, withoutInteraction } from './prompt.js'
import { type RememberedConsent, rememberedScopes } from './remembered-consent.js'
import { signInIsFresh } from './sign-in-freshness.js'

/** Everything the decision is made from; it reads no storage, cookie or clock of its own. */
export interface DecisionInput {
  /** The checked request (check-request.ts). */
  readonly params: AuthorizationParams
  readonly client: Pick<Client, 'kind'>
  /** The browser's sign-in, if any: when it was made and whose role it carries. */
  readonly session:
    | { readonly authTime: number; readonly user: { readonly role: Role } }
    | undefined
  /** The consent this person gave this client before, if any. */
  readonly consent: RememberedConsent | undefined
  readonly now: number
  /** When the request was stored, if a pending one is being continued after a sign-in. */
  readonly requestCreatedAt?: number | undefined
}

/**
 * The authorization decision (OpenID Connect Core 1.0 §3.1.2.1 to §3.1.2.4): sign in first
 * when there is no sign-in fresh enough for `prompt` and `max_age`; with `prompt=none` a
 * code or an error and never a page; otherwise a code when the person's consent is
 * remembered and `prompt=consent` was not asked, else the consent page.
 */
export function decideAuthorization(input: DecisionInput): AuthorizationDecision {
  const { params, session } = input
  const fresh =
    session !== undefined &&
    signInIsFresh(
      { authTime: session.authTime, now: input.now, requestCreatedAt: input.requestCreatedAt },
      params,
    )
  const remembered = () =>
    session && rememberedScopes(input.client, session.user.role, params, input.consent)
  if (forbidsInteraction(params.prompt))
    return withoutInteraction(fresh, fresh ? remembered() : undefined)
  if (!fresh) return { kind: 'login' }
  if (!demandsConsent(params.prompt)) {
    const scopes = remembered()
    if (scopes) return { kind: 'approve', scopes }
  }
  return { kind: 'consent' }
}
