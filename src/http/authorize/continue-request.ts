import type { FastifyReply, FastifyRequest } from 'fastify'
import type { AppDeps } from '../../app-deps.js'
import type { AuthorizationParams } from '../../oauth/authorize/check-request.js'
import { digest } from '../../platform/crypto.js'
import { cookieNames, currentSession, readCookie, redirect } from '../browser.js'
import { approve, sendRefusal } from './approve.js'
import { sendConsentPage } from './consent-page.js'
import { decideForBrowser } from './decide-for-browser.js'
import { EXPIRED, OTHER_BROWSER, REQUEST_ID } from './pending-request.js'

/**
 * `GET /oauth/authorize/continue?request=…`, where the sign-in page sends the person back:
 * the pending request, if it belongs to this browser, decided again with the sign-in made
 * for it. A code when the person's consent is remembered, else the consent page, bound now
 * to this session and to a fresh CSRF token; back to sign-in when the sign-in is not fresh
 * enough for `prompt=login` and `max_age`.
 */
export async function continueRequest(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  id: string | undefined,
) {
  const row =
    id && REQUEST_ID.test(id) ? await deps.authorizationRequests.find(digest(id)) : undefined
  const now = deps.clock.now()
  if (!id || !row || row.consumed_at !== null || row.expires_at <= now) throw EXPIRED
  const browser = readCookie(request, cookieNames(deps.config.issuer).browser)
  if (!browser || digest(browser) !== row.browser_digest) throw OTHER_BROWSER
  const params = JSON.parse(row.params) as AuthorizationParams
  const current = await currentSession(request, deps)
  const client = await deps.clients.find(row.client_id)
  if (!client) throw EXPIRED

  const decision = await decideForBrowser(deps, {
    params,
    client,
    current,
    now,
    requestCreatedAt: row.created_at,
  })
  if (decision.kind === 'login' || !current)
    return redirect(reply, `/login?request=${encodeURIComponent(id)}`)
  // A pending request never has prompt=none (that is decided at once), but be total.
  if (decision.kind === 'refuse') {
    if (!(await deps.authorizationRequests.consume(row.id_digest, now))) throw EXPIRED
    return sendRefusal(deps, reply, params, decision)
  }
  if (
    decision.kind === 'approve' &&
    (await deps.authorizationRequests.consume(row.id_digest, now))
  ) {
    return approve(deps, reply, client, params, current, decision.scopes)
  }
  const csrf = deps.random.token('pcf')
  await deps.authorizationRequests.bindSession(
    row.id_digest,
    current.session.idDigest,
    digest(csrf),
  )
  return sendConsentPage(deps, reply, { id, csrf, client, params, current })
}
