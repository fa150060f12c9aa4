import type { AuthorizationParams } from '../check-request.js'
import { type AuthorizationDecision, refuse } from './decision.js'

type Prompt = AuthorizationParams['prompt']

/** `prompt=none` (OpenID Connect Core 1.0 §3.1.2.1): no page may be shown to the person. */
export function forbidsInteraction(prompt: Prompt): boolean {
  return prompt.includes('none')
}

/** `prompt=consent`: the person is asked again even when they approved this before. */
export function demandsConsent(prompt: Prompt): boolean {
  return prompt.includes('consent')
}

/**
 * The answer to `prompt=none`, with no page: `login_required` unless a sign-in fresh enough
 * for the request exists, then `consent_required` unless the person's consent is remembered
 * for every requested scope, else a code. RFC 8252 §8.6: a self-registered client, whose
 * consent is never remembered, never gets a code without the person present.
 */
export function withoutInteraction(
  freshSignIn: boolean,
  remembered: readonly string[] | undefined,
): AuthorizationDecision {
  if (!freshSignIn) return refuse('login_required', 'the person must sign in')
  if (!remembered) return refuse('consent_required', 'the person must approve this request')
  return { kind: 'approve', scopes: remembered }
}
