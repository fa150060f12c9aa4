import formbody from '@fastify/formbody'
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  LogController,
} from 'fastify'
import { JSON_BODY_LIMIT } from '../api/framework/operation.js'
import type { AppDeps } from '../app-deps.js'
import { unredacted } from '../platform/logger.js'
import { accountRoutes } from './account-page-routes.js'
import { apiRoutes } from './api-routes.js'
import { approvalRoutes } from './approval-routes.js'
import { appsPageRoutes } from './apps-page-routes.js'
import { hasRepeatedAuthorization, repeatedAuthorizationError } from './authorization-header.js'
import { authorizeRoutes } from './authorize-routes.js'
import type { AppContext, RouteModule } from './deps.js'
import { discoveryRoutes } from './discovery-routes.js'
import { handleError } from './errors.js'
import { filesRoutes } from './files-routes.js'
import { healthRoutes } from './health-routes.js'
import { parseStrictJson } from './json-body.js'
import { loginRoutes } from './login-routes.js'
import { mcpRoutes } from './mcp-routes.js'
import { openapiRoutes } from './openapi-routes.js'
import { normalisePath } from './path-normalisation.js'
import { parseForm } from './raw-form.js'
import { registrationRoutes } from './registration-routes.js'
import { lazyRequestLogger } from './request-logger.js'
import { revocationRoutes } from './revocation-routes.js'
import { tokenRoutes } from './token-routes.js'
import { userinfoRoutes } from './userinfo-routes.js'

/** Every route module, in registration order. Discovery and OpenAPI derive from this list. */
export const ROUTE_MODULES: readonly RouteModule[] = [
  healthRoutes,
  discoveryRoutes,
  registrationRoutes,
  authorizeRoutes,
  loginRoutes,
  accountRoutes,
  appsPageRoutes,
  approvalRoutes,
  apiRoutes,
  filesRoutes,
  mcpRoutes,
  tokenRoutes,
  userinfoRoutes,
  revocationRoutes,
  openapiRoutes,
]

/** Default bound on request bodies (the API's JSON limit); endpoints may set a smaller one. */
const BODY_LIMIT = JSON_BODY_LIMIT

/**
 * Paths that are HTML pages for people: everything else is an API open to any origin. Also
 * every route whose errors are pages (`family: 'html'`). Matched after `normalisePath`, so
 * `/%6cogin` is `/login` here as it is to the router.
 */
const PAGE_PATH = /^\/(oauth\/authorize|login|logout|consent|account|docs)(\/|\?|$)/

const CORS_METHODS = 'GET, HEAD, POST, PATCH, PUT, DELETE'
// The Mcp-* headers and Last-Event-ID are those of MCP's Streamable HTTP transport, so that
// browser-based MCP clients can call /mcp (and read its WWW-Authenticate challenges).
const CORS_ALLOWED_HEADERS =
  'Authorization, Content-Type, If-Match, Idempotency-Key, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Session-Id, Last-Event-ID'
const CORS_EXPOSED_HEADERS =
  'WWW-Authenticate, Location, ETag, Retry-After, X-Request-Id, Mcp-Session-Id, Mcp-Protocol-Version'
const CORS_MAX_AGE = '86400'

/**
 * Builds the HTTP app from its dependencies. It never listens: main.ts and the tests do.
 */
export async function createApp(
  deps: AppDeps,
  modules: readonly RouteModule[] = ROUTE_MODULES,
): Promise<FastifyInstance> {
  const requestTimeoutMs = deps.config.requestTimeout * 1000
  const { trustProxy } = deps.config
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    genReqId: () => deps.random.id('req'),
    childLoggerFactory: lazyRequestLogger,
    logController: new LogController({
      requestIdLogLabel: 'request_id',
      disableRequestLogging: true,
    }),
    trustProxy:
      typeof trustProxy === 'number'
        ? (_address: string, hop: number) => hop < trustProxy
        : typeof trustProxy === 'object'
          ? [...trustProxy]
          : trustProxy,
    bodyLimit: BODY_LIMIT,
    // A client that trickles its request (slowloris) is cut off with 408 once this passes.
    // Fastify sets requestTimeout after creating the server, which would leave Node's
    // headersTimeout at 60 s and let a trickled body run that long: both are set here.
    // Node checks every connectionsCheckingInterval, so that is a fraction of the timeout.
    requestTimeout: requestTimeoutMs,
    http: {
      requestTimeout: requestTimeoutMs,
      headersTimeout: Math.min(60_000, requestTimeoutMs),
      connectionsCheckingInterval: Math.min(30_000, Math.ceil(requestTimeoutMs / 4)),
    },
    connectionTimeout: 60_000,
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: false },
    rewriteUrl: (request) => normalisePath(request.url ?? '/'),
  })

  // Security headers, the request id and CORS in one synchronous hook: each of the async
  // hooks and the @fastify/cors delegator this replaces cost a few µs on every request
  // (npm run bench, profiled). Same headers and preflight answers as @fastify/cors gave.
  app.addHook('onRequest', (request, reply, done) => {
    void reply
      .header('x-request-id', request.id)
      .header('x-content-type-options', 'nosniff')
      .header('vary', 'Origin')
    const page = request.routeOptions.config?.family === 'html' || PAGE_PATH.test(request.url)
    if (!page) {
      void reply
        .header('access-control-allow-origin', '*')
        .header('access-control-expose-headers', CORS_EXPOSED_HEADERS)
    }
    if (hasRepeatedAuthorization(request.raw.rawHeaders)) {
      return done(repeatedAuthorizationError(request, deps.config.issuer))
    }
    if (page || request.method !== 'OPTIONS') return done()
    // A preflight is answered here, before anything could refuse it for lacking credentials.
    if (!request.headers.origin || !request.headers['access-control-request-method']) {
      void reply.code(400).type('text/plain').send('Invalid Preflight Request')
      return
    }
    void reply
      .header('access-control-allow-methods', CORS_METHODS)
      .header('access-control-allow-headers', CORS_ALLOWED_HEADERS)
      .header('access-control-max-age', CORS_MAX_AGE)
      .code(204)
      .header('content-length', '0')
      .send()
  })
  // Preflights of API paths are answered by the hook above; pages take no cross-origin calls.
  app.options('*', (_request, reply) => {
    reply.callNotFound()
  })
  // The request line carries only values made here (method, path, status, time): nothing the
  // redaction paths could match, so it skips redaction, which cost more than the line itself.
  const requestLog = unredacted(deps.logger)
  app.addHook('onResponse', (request, reply, done) => {
    // The route pattern, never the path: one series per endpoint, whatever is requested.
    const route = request.routeOptions.url ?? 'unmatched'
    deps.metrics.requestServed(request.method, route, reply.statusCode, reply.elapsedTime / 1000)
    // The path only: query strings can carry values that do not belong in logs.
    const query = request.url.indexOf('?')
    requestLog.info(
      {
        request_id: request.id,
        method: request.method,
        path: query < 0 ? request.url : request.url.slice(0, query),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      'request',
    )
    done()
  })

  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseStrictJson(body as string))
    } catch (error) {
      done(error as Error, undefined)
    }
  })
  await app.register(formbody, { bodyLimit: BODY_LIMIT, parser: parseForm })
  app.setErrorHandler<FastifyError>((error, request, reply) =>
    handleError(error, request, reply, deps.school),
  )
  app.setNotFoundHandler((request, reply) => {
    void reply
      .code(404)
      .header('cache-control', 'no-store')
      .type('application/problem+json')
      .send({
        type: 'https://portico.dev/problems/not-found',
        status: 404,
        code: 'not_found',
        title: 'Not Found',
        detail: `no route for ${request.method} ${request.url.split('?')[0]}`,
        request_id: request.id,
      })
  })

  const context = buildContext(deps.config.issuer, modules)
  for (const module of modules) module.register(app, deps, context)
  return app
}

function buildContext(issuer: string, modules: readonly RouteModule[]): AppContext {
  const advertised: Record<string, string> = {}
  const openapi: AppContext['openapi'] = {}
  for (const module of modules) {
    for (const [key, path] of Object.entries(module.advertises ?? {}))
      advertised[key] = `${issuer}${path}`
    Object.assign(openapi, module.openapi)
  }
  return { advertised, openapi }
}
