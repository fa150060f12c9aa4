import type { FastifyReply, FastifyRequest } from 'fastify'
import {
  buildRedirect,
  checkAuthorizationParams,
  checkClientAndRedirect,
  type RawParams,
} from '../oauth/authorize/check-request.js'
import { AuthorizePageError } from '../oauth/authorize/errors.js'
import { rawQueryValues } from '../oauth/authorize/state.js'
import { ClientDocumentRefused } from '../oauth/client-id-metadata/resolve-client.js'
import { OAuthError } from '../oauth/errors.js'
import { digest } from '../platform/crypto.js'
import { approve } from './authorize/approve.js'
import { type ConsentForm, takeConsentDecision } from './authorize/consent-decision.js'
import { sendConsentPage } from './authorize/consent-page.js'
import { continueRequest } from './authorize/continue-request.js'
import { decideForBrowser } from './authorize/decide-for-browser.js'
import { REQUEST_LIFETIME_MS } from './authorize/pending-request.js'
import { storeAnonymousRequest } from './authorize-bounds.js'
import { currentSession, ensureBrowserToken, redirect } from './browser.js'
import type { RouteModule } from './deps.js'
import { rawFormQuery } from './raw-form.js'

export const AUTHORIZE_PATH = '/oauth/authorize'

const AUTHORIZE_PARAMETERS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'nonce',
  'resource',
  'prompt',
  'max_age',
  'login_hint',
]
const REQUIRED_PARAMETERS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'code_challenge',
  'code_challenge_method',
]
const AUTHORIZE_RESPONSES = {
  '200': { description: 'Consent page', content: { 'text/html': { schema: { type: 'string' } } } },
  '303': {
    description: 'Redirect to sign-in, or to the client with code, state and iss (or an error)',
  },
  '400': {
    description:
      'Error page: unknown client, missing or unregistered redirect URI, or a state that cannot be returned exactly',
    content: { 'text/html': { schema: { type: 'string' } } },
  },
  '415': {
    description: 'Error page: the body is not a form',
    content: { 'text/html': { schema: { type: 'string' } } },
  },
  '429': {
    description:
      'Error page, with Retry-After: too many authorization requests from browsers not signed in at this address',
    content: { 'text/html': { schema: { type: 'string' } } },
  },
}

/**
 * The authorization endpoint (RFC 6749 §4.1, with PKCE and RFC 9207 `iss`), and the consent
 * decision. Nothing here redirects before the client and its redirect URI are known good.
 */
export const authorizeRoutes: RouteModule = {
  advertises: { authorization_endpoint: AUTHORIZE_PATH },
  openapi: {
    [AUTHORIZE_PATH]: {
      get: {
        operationId: 'authorize',
        summary: 'Authorization endpoint (Authorization Code + PKCE S256); an interactive page',
        tags: ['oauth'],
        parameters: AUTHORIZE_PARAMETERS.map((name) => ({
          name,
          in: 'query',
          required: REQUIRED_PARAMETERS.includes(name),
          schema: { type: 'string' },
        })),
        responses: AUTHORIZE_RESPONSES,
      },
      post: {
        operationId: 'authorizeByForm',
        summary: 'The authorization endpoint with its parameters as a form (OIDC Core §3.1.2.1)',
        tags: ['oauth'],
        requestBody: {
          required: true,
          content: {
            'application/x-www-form-urlencoded': {
              schema: {
                type: 'object',
                required: REQUIRED_PARAMETERS,
                properties: Object.fromEntries(
                  AUTHORIZE_PARAMETERS.map((name) => [name, { type: 'string' }]),
                ),
              },
            },
          },
        },
        responses: AUTHORIZE_RESPONSES,
      },
    },
  },
  register(app, deps) {
    const html = { config: { family: 'html' as const } }

    const authorize = async (
      request: FastifyRequest,
      reply: FastifyReply,
      raw: RawParams,
      rawState: readonly string[],
    ) => {
      const checkDeps = {
        clients: deps.clientResolver,
        resourceServers: deps.resourceServers,
        issuer: deps.config.issuer,
      }
      const { client, target } = await checkClientAndRedirect(raw, checkDeps, rawState).catch(
        (error: unknown) => {
          if (!(error instanceof ClientDocumentRefused)) throw error
          // Never a redirect: none of the document's URIs can be trusted.
          request.log.warn(
            { event: 'client_document_refused', client_id: raw.client_id, reason: error.reason },
            'client id metadata document refused',
          )
          throw new AuthorizePageError(
            'Application not recognised',
            'The application identifies itself by a web address whose description could not be fetched or is not valid (invalid_client). Nothing was sent to it.',
          )
        },
      )
      try {
        const params = await checkAuthorizationParams(raw, client, target, checkDeps)
        const current = await currentSession(request, deps)
        const now = deps.clock.now()
        const decision = await decideForBrowser(deps, { params, client, current, now })
        if (decision.kind === 'refuse') throw new OAuthError(decision.error, decision.description)
        if (decision.kind === 'approve' && current)
          return approve(deps, reply, client, params, current, decision.scopes)
        // Everyone else sees the consent page, the request stored already bound to this
        // session and to the page's CSRF token (what the decision checks), or signs in first.
        const signedIn = decision.kind === 'consent' ? current : undefined
        const id = deps.random.token('par')
        const csrf = deps.random.token('pcf')
        const browser = ensureBrowserToken(request, reply, deps)
        const row = {
          id_digest: digest(id),
          client_id: client.clientId,
          params: JSON.stringify(params),
          browser_digest: digest(browser),
          csrf_digest: digest(csrf),
          session_digest: signedIn?.session.idDigest ?? null,
          address_digest: null,
          created_at: now,
          expires_at: now + REQUEST_LIFETIME_MS,
          consumed_at: null,
        }
        // Nobody signed in yet: bounded per client address (authorize-bounds.ts).
        if (signedIn) await deps.authorizationRequests.insert(row)
        else await storeAnonymousRequest(deps, request, reply, row)
        if (!signedIn) return redirect(reply, `/login?request=${encodeURIComponent(id)}`)
        return sendConsentPage(deps, reply, { id, csrf, client, params, current: signedIn })
      } catch (error) {
        if (!(error instanceof OAuthError)) throw error
        return redirect(
          reply,
          buildRedirect(target, deps.config.issuer, {
            error: error.error,
            error_description: error.description,
          }),
        )
      }
    }

    app.get(AUTHORIZE_PATH, html, (request, reply) =>
      authorize(request, reply, request.query as RawParams, rawQueryValues(request.url, 'state')),
    )
    // OIDC Core §3.1.2.1: the endpoint also takes the parameters as a form post.
    app.post(AUTHORIZE_PATH, html, (request, reply) => {
      if (
        !(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')
      ) {
        throw new AuthorizePageError(
          'Invalid request',
          'Send the authorization request as a query string or a form.',
          415,
        )
      }
      const form = request.body ?? {}
      const raw = rawFormQuery(form)
      return authorize(request, reply, form as RawParams, raw ? rawQueryValues(raw, 'state') : [])
    })

    app.get<{ Querystring: { request?: string } }>(
      `${AUTHORIZE_PATH}/continue`,
      html,
      (request, reply) => continueRequest(deps, request, reply, request.query.request),
    )

    app.post<{ Body: ConsentForm }>(`${AUTHORIZE_PATH}/decision`, html, (request, reply) =>
      takeConsentDecision(deps, request, reply, request.body ?? {}),
    )
  },
}
