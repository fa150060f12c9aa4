import type { AppDeps } from '../../app-deps.js'
import type { AuthorizationParams } from '../../oauth/authorize/check-request.js'
import { decideAuthorization } from '../../oauth/authorize/decision/decide.js'
import type { AuthorizationDecision } from '../../oauth/authorize/decision/decision.js'
import { remembersConsent } from '../../oauth/authorize/decision/remembered-consent.js'
import type { Client } from '../../storage/clients.js'
import type { CurrentSession } from '../browser.js'

/**
 * The authorization decision (oauth/authorize/decision/decide.ts) for this browser's sign-in,
 * with the consent the person gave this client before read from storage.
 */
export async function decideForBrowser(
  deps: AppDeps,
  input: {
    readonly params: AuthorizationParams
    readonly client: Client
    readonly current: CurrentSession | undefined
    readonly now: number
    readonly requestCreatedAt?: number
  },
): Promise<AuthorizationDecision> {
  const session = input.current?.session
  const consent =
    session && remembersConsent(input.client)
      ? await deps.consents.find(session.user.id, input.client.clientId)
      : undefined
  return decideAuthorization({ ...input, session, consent })
}
