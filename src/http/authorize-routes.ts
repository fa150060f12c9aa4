import type { FastifyReply, FastifyRequest } from 'fastify'
import type { AppDeps } from '../app-deps.js'
import {
  type AuthorizationParams,
  buildRedirect,
  checkAuthorizationParams,
  checkClientAndRedirect,
  type RawParams,
} from '../oauth/authorize/check-request.js'
import { AuthorizePageError } from '../oauth/authorize/errors.js'
import { issueCode } from '../oauth/authorize/issue-code.js'
import { describeScope, groupScopes } from '../oauth/authorize/scope-labels.js'
import { rawQueryValues } from '../oauth/authorize/state.js'
import { ClientDocumentRefused } from '../oauth/client-id-metadata/resolve-client.js'
import { OAuthError } from '../oauth/errors.js'
import { roleAllows } from '../oauth/roles.js'
import { digest, secretMatches } from '../platform/crypto.js'
import type { Client } from '../storage/clients.js'
import type { User } from '../storage/users.js'
import { consentPage } from '../views/consent-page.js'
import { storeAnonymousRequest } from './authorize-bounds.js'
import {
  type CurrentSession,
  cookieNames,
  currentSession,
  ensureBrowserToken,
  logoutCsrf,
  readCookie,
  redirect,
  sendPage,
} from './browser.js'
import type { RouteModule } from './deps.js'
import { rawFormQuery } from './raw-form.js'

export const AUTHORIZE_PATH = '/oauth/authorize'

/** How long a person has to sign in and decide. */
const REQUEST_LIFETIME_MS = 10 * 60_000
const REQUEST_ID = /^par_[A-Za-z0-9_-]{43}$/

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

const EXPIRED = new AuthorizePageError(
  'This request has expired',
  'This authorization request has expired or was already answered. Go back to the application and start again.',
)
const OTHER_BROWSER = new AuthorizePageError(
  'Request not valid here',
  'This authorization request was started in another browser or its form is no longer valid. Go back to the application and start again.',
  403,
)

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
        const needsLogin =
          !current ||
          params.prompt.includes('login') ||
          (params.maxAge !== undefined && now - current.session.authTime > params.maxAge * 1000)
        if (params.prompt.includes('none')) {
          // RFC 8252 §8.6: a self-registered client never gets a code without the person present.
          if (needsLogin || !current)
            throw new OAuthError('login_required', 'the person must sign in')
          const remembered = await rememberedScopes(deps, client, current.session.user, params)
          if (!remembered)
            throw new OAuthError('consent_required', 'the person must approve this request')
          return approve(deps, reply, client, params, current, remembered)
        }
        // Signed in and recently enough: an integration the person already approved gets its
        // code now; anyone else sees the consent page, the request stored already bound to
        // this session and to the page's CSRF token (what the decision checks).
        const signedIn = needsLogin ? undefined : current
        if (signedIn && !params.prompt.includes('consent')) {
          const remembered = await rememberedScopes(deps, client, signedIn.session.user, params)
          if (remembered) return approve(deps, reply, client, params, signedIn, remembered)
        }
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
      (request, reply) => showConsent(deps, request, reply, request.query.request),
    )

    app.post<{ Body: { request?: unknown; csrf?: unknown; decision?: unknown } }>(
      `${AUTHORIZE_PATH}/decision`,
      html,
      async (request, reply) => {
        const form = request.body ?? {}
        const id =
          typeof form.request === 'string' && REQUEST_ID.test(form.request)
            ? form.request
            : undefined
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
        const target = { redirectUri: params.redirectUri, state: params.state }
        if (form.decision !== 'approve') {
          return redirect(
            reply,
            buildRedirect(target, deps.config.issuer, {
              error: 'access_denied',
              error_description: 'the person denied the request',
            }),
          )
        }
        const granted = params.scopes.filter((s) => roleAllows(current.session.user.role, s))
        if (granted.length === 0) {
          return redirect(
            reply,
            buildRedirect(target, deps.config.issuer, {
              error: 'invalid_scope',
              error_description: 'none of the requested scopes can be granted to this person',
            }),
          )
        }
        if (client.kind === 'integration') {
          await deps.consents.save({
            userId: current.session.user.id,
            clientId: client.clientId,
            scope: granted.join(' '),
            resource: params.resource,
            now,
          })
        }
        return approve(deps, reply, client, params, current, granted)
      },
    )
  },
}

/**
 * Shows the consent page for a pending request, after checking that it belongs to this
 * browser and that the person's sign-in satisfies `prompt=login` and `max_age`.
 */
async function showConsent(
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
  const { authTime } = current?.session ?? { authTime: 0 }
  // A sign-in made after the request arrived is a fresh authentication for it: it satisfies
  // prompt=login and max_age however long the person then took (max_age=0 included).
  const signedInForThis = authTime >= row.created_at
  const freshEnough =
    current !== undefined &&
    (!params.prompt.includes('login') || signedInForThis) &&
    (params.maxAge === undefined || signedInForThis || now - authTime <= params.maxAge * 1000)
  if (!current || !freshEnough) return redirect(reply, `/login?request=${encodeURIComponent(id)}`)
  const client = await deps.clients.find(row.client_id)
  if (!client) throw EXPIRED

  const { user } = current.session
  if (!params.prompt.includes('consent')) {
    const remembered = await rememberedScopes(deps, client, user, params)
    if (remembered && (await deps.authorizationRequests.consume(row.id_digest, now))) {
      return approve(deps, reply, client, params, current, remembered)
    }
  }
  const csrf = deps.random.token('pcf')
  await deps.authorizationRequests.bindSession(
    row.id_digest,
    current.session.idDigest,
    digest(csrf),
  )
  return sendConsentPage(deps, reply, { id, csrf, client, params, current })
}

/** The consent page of a request bound to this session and to `csrf`. */
async function sendConsentPage(
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
  const available = params.scopes.filter((s) => roleAllows(user.role, s))
  const unavailable = params.scopes.filter((s) => !roleAllows(user.role, s))
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
      ...groupScopes(available),
      unavailable: unavailable.map(describeScope),
      userName: user.name,
      userEmail: user.email,
      request: id,
      csrf,
      logoutCsrf: logoutCsrf(current.token),
    }),
    brand,
  )
}

/**
 * The scopes a registered integration may receive without asking again: the person approved
 * them before for the same resource, and their role still allows them. Self-registered tools
 * are asked every time.
 */
async function rememberedScopes(
  deps: AppDeps,
  client: Client,
  user: User,
  params: AuthorizationParams,
): Promise<string[] | undefined> {
  if (client.kind !== 'integration') return undefined
  const consent = await deps.consents.find(user.id, client.clientId)
  if (!consent || consent.resource !== params.resource) return undefined
  const approved = new Set(consent.scope.split(' '))
  const granted = params.scopes.filter((s) => roleAllows(user.role, s))
  return granted.length === params.scopes.length && granted.every((s) => approved.has(s))
    ? granted
    : undefined
}

async function approve(
  deps: AppDeps,
  reply: FastifyReply,
  client: Client,
  params: AuthorizationParams,
  current: CurrentSession,
  granted: readonly string[],
) {
  const now = deps.clock.now()
  const code = await issueCode(
    {
      grants: deps.grants,
      random: deps.random,
      codeLifetimeMs: deps.config.lifetimes.authorizationCode * 1000,
      refreshLifetimeMs: deps.config.lifetimes.refreshToken * 1000,
      grantMaximumMs: deps.config.lifetimes.grantMaximum * 1000,
    },
    {
      params,
      userId: current.session.user.id,
      grantedScopes: granted,
      authTime: current.session.authTime,
      now,
    },
  )
  await deps.clients.touch(client, now)
  return redirect(
    reply,
    buildRedirect({ redirectUri: params.redirectUri, state: params.state }, deps.config.issuer, {
      code,
    }),
  )
}
