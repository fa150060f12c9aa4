import type { Client } from '../../../storage/clients.js'
import type { Role } from '../../roles.js'
import type { AuthorizationParams } from '../check-request.js'
import { scopesForRole } from './role-scopes.js'

/** A consent the person gave a client earlier (storage/consents.ts). */
export interface RememberedConsent {
  /** The approved scopes, space-separated. */
  readonly scope: string
  readonly resource: string
}

/** Only a registered integration's consent is remembered; self-registered tools ask every time. */
export function remembersConsent(client: Pick<Client, 'kind'>): boolean {
  return client.kind === 'integration'
}

/**
 * The scopes a client may receive without asking again: it is an integration, the person
 * approved every requested scope before for the same resource, and their role still allows
 * every one of them. Undefined when the person must be asked.
 */
export function rememberedScopes(
  client: Pick<Client, 'kind'>,
  role: Role,
  params: Pick<AuthorizationParams, 'scopes' | 'resource'>,
  consent: RememberedConsent | undefined,
): string[] | undefined {
  if (!remembersConsent(client) || !consent || consent.resource !== params.resource)
    return undefined
  const approved = new Set(consent.scope.split(' '))
  const { grantable, refused } = scopesForRole(params.scopes, role)
  return refused.length === 0 && grantable.every((s) => approved.has(s)) ? grantable : undefined
}
