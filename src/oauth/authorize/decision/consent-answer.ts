import type { Client } from '../../../storage/clients.js'
import type { Role } from '../../roles.js'
import type { AuthorizationParams } from '../check-request.js'
import { type Refusal, refuse } from './decision.js'
import { remembersConsent } from './remembered-consent.js'
import { scopesForRole } from './role-scopes.js'

/** What the consent page's form leads to. */
export type ConsentAnswer =
  | Refusal
  | {
      readonly kind: 'approve'
      readonly scopes: readonly string[]
      /** Whether to remember the approved scopes, so the person is not asked next time. */
      readonly remember: boolean
    }

/**
 * The person's answer on the consent page (RFC 6749 §4.1.2.1): anything but `approve` is
 * `access_denied`; an approval grants what the person's role allows of the request, and of
 * nothing grantable (the page offers no Approve button then) is `invalid_scope`.
 */
export function answerConsent(
  decision: unknown,
  params: Pick<AuthorizationParams, 'scopes'>,
  client: Pick<Client, 'kind'>,
  role: Role,
): ConsentAnswer {
  if (decision !== 'approve') return refuse('access_denied', 'the person denied the request')
  const { grantable } = scopesForRole(params.scopes, role)
  if (grantable.length === 0) {
    return refuse('invalid_scope', 'none of the requested scopes can be granted to this person')
  }
  return { kind: 'approve', scopes: grantable, remember: remembersConsent(client) }
}
