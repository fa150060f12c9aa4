import type { FastifyReply } from 'fastify'
import type { AppDeps } from '../../app-deps.js'
import type { AuthorizationParams } from '../../oauth/authorize/check-request.js'
import { scopesForRole } from '../../oauth/authorize/decision/role-scopes.js'
import { describeScope, groupScopes } from '../../oauth/authorize/scope-labels.js'
import type { Client } from '../../storage/clients.js'
import { consentPage } from '../../views/consent-page.js'
import { type CurrentSession, logoutCsrf, sendPage } from '../browser.js'

/** The consent page of a request bound to this session and to `csrf`. */
export async function sendConsentPage(
  deps: AppDeps,
  reply: FastifyReply,
  page: {
    readonly id: string
    readonly csrf: string
    readonly client: Client
    readonly params: AuthorizationParams
    readonly current: CurrentSession
  },
) {
  const { id, csrf, client, params, current } = page
  const { user } = current.session
  const { grantable, refused } = scopesForRole(params.scopes, user.role)
  const destination = new URL(params.redirectUri)
  const brand = await deps.school.brand()
  return sendPage(
    reply,
    200,
    consentPage({
      school: brand.name,
      brand,
      clientName: client.clientName,
      clientId: client.clientId,
      selfRegistered: client.kind === 'self_registered',
      document:
        client.kind === 'metadata_document'
          ? {
              host: new URL(client.clientId).host,
              reviewed: await deps.trustedClientDocuments.isTrusted(client.clientId),
            }
          : undefined,
      destination: destination.host,
      ...groupScopes(grantable),
      unavailable: refused.map(describeScope),
      userName: user.name,
      userEmail: user.email,
      request: id,
      csrf,
      logoutCsrf: logoutCsrf(current.token),
    }),
    brand,
  )
}
