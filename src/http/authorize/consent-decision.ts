import type { FastifyReply, FastifyRequest } from 'fastify'
import type { AppDeps } from '../../app-deps.js'
import type { AuthorizationParams } from '../../oauth/authorize/check-request.js'
import { answerConsent } from '../../oauth/authorize/decision/consent-answer.js'
import { digest, secretMatches } from '../../platform/crypto.js'
import { cookieNames, currentSession, readCookie } from '../browser.js'
import { approve, sendRefusal } from './approve.js'
import { EXPIRED, OTHER_BROWSER, REQUEST_ID } from './pending-request.js'

/** The consent page's form. */
export interface ConsentForm {
  readonly request?: unknown
  readonly csrf?: unknown
  readonly decision?: unknown
}

/**
 * `POST /oauth/authorize/decision`: the person's answer to the consent page, taken once, and
 * only from the browser, session and page the request was bound to.
 */
export async function takeConsentDecision(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  form: ConsentForm,
) {
  const id =
    typeof form.request === 'string' && REQUEST_ID.test(form.request) ? form.request : undefined
  const row = id && (await deps.authorizationRequests.find(digest(id)))
  const now = deps.clock.now()
  if (!row || row.consumed_at !== null || row.expires_at <= now) throw EXPIRED
  const browser = readCookie(request, cookieNames(deps.config.issuer).browser)
  const current = await currentSession(request, deps)
  const csrf = typeof form.csrf === 'string' ? form.csrf : ''
  if (
    !browser ||
    digest(browser) !== row.browser_digest ||
    !current ||
    current.session.idDigest !== row.session_digest ||
    !secretMatches(csrf, row.csrf_digest)
  ) {
    throw OTHER_BROWSER
  }
  if (!(await deps.authorizationRequests.consume(row.id_digest, now))) throw EXPIRED
  const params = JSON.parse(row.params) as AuthorizationParams
  const client = await deps.clients.find(row.client_id)
  if (!client) throw EXPIRED
  const { user } = current.session
  const answer = answerConsent(form.decision, params, client, user.role)
  if (answer.kind === 'refuse') return sendRefusal(deps, reply, params, answer)
  if (answer.remember) {
    await deps.consents.save({
      userId: user.id,
      clientId: client.clientId,
      scope: answer.scopes.join(' '),
      resource: params.resource,
      now,
    })
  }
  return approve(deps, reply, client, params, current, answer.scopes)
}
