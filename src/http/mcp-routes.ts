import { createRequestStateCodec } from '@modelcontextprotocol/server'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { countRefused } from '../api/activity/refusals.js'
import { answerInClient } from '../api/approvals/client-answers.js'
import { identifyCaller, type ProtectedResource } from '../api/caller.js'
import { JSON_BODY_LIMIT } from '../api/framework/operation.js'
import { apiOperations } from '../api/operations.js'
import { ProblemError } from '../api/problem.js'
import type { AskedState } from '../mcp/approval-asks.js'
import { callPrefetch, PREFETCH_BODY_LIMIT } from '../mcp/call-prefetch.js'
import { stepUps } from '../mcp/step-up.js'
import { surfaceOf } from '../mcp/surface.js'
import { type SchoolTool, schoolTools } from '../mcp/tools.js'
import { bearerChallenge } from '../oauth/bearer.js'
import { mcpProtectedResourceMetadata } from '../oauth/discovery.js'
import { mcpResourceOf } from '../oauth/resource.js'
import { RESOURCE_SCOPES } from '../oauth/scopes.js'
import type { RouteModule } from './deps.js'
import { handleError } from './errors.js'
import { parseStrictJson } from './json-body.js'
import { mcpExchange } from './mcp-exchange.js'

export const MCP_PATH = '/mcp'
export const MCP_METADATA_PATH = '/.well-known/oauth-protected-resource/mcp'

/**
 * The scopes the 401 challenge asks for: what a typical agent needs to look around the
 * school (every read scope); writes are asked for when a tool needs them (step-up).
 */
export const MCP_CHALLENGE_SCOPES = RESOURCE_SCOPES.filter((s) => s.endsWith(':read'))

const SERVER_VERSION = '0.1.0'

/** A JSON-RPC error answered by HTTP itself (no request it could belong to). */
function rpcError(reply: FastifyReply, status: number, code: number, message: string) {
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .type('application/json')
    .send({ jsonrpc: '2.0', error: { code, message }, id: null })
}

const PARSE_ERROR = Symbol('not one JSON value')

/** A request body as one JSON value (boxed: the value may be anything), or PARSE_ERROR. */
function readRpc(text: string): { readonly value: unknown } | typeof PARSE_ERROR {
  try {
    return { value: parseStrictJson(text) }
  } catch {
    return PARSE_ERROR
  }
}

/**
 * The largest body `POST /mcp` reads: a tool call carrying a file of the largest upload in
 * base64, even wrapped as MIME wraps it (a line break every 76 characters, `\r\n`, which
 * JSON writes as four characters), with room for the message around it. A tool call's own
 * JSON body is held to the API's JSON limit by the call itself (src/mcp/server.ts), and the
 * arguments REST carries in its URL to 16 KiB (src/mcp/argument-lengths.ts).
 */
export function mcpBodyLimit(uploadMaxBytes: number): number {
  const base64 = Math.ceil(uploadMaxBytes / 3) * 4
  return Math.ceil((base64 * 80) / 76) + JSON_BODY_LIMIT
}

/** A serialised origin: scheme, host and port only (RFC 6454 §6.2), or `null`. */
const ORIGIN = /^(?:null|[a-z][a-z0-9+.-]*:\/\/[^\s/?#@]+)$/i

/**
 * DNS-rebinding protection (MCP Streamable HTTP, security warning): the Host must name the
 * issuer's host (any port, as the SDK's hostHeaderValidation), so a page whose own name was
 * made to point at this server is refused. Any Origin is accepted, as on the REST API: a
 * call carries no ambient credential (no cookie), only a bearer token, which a page from
 * another origin holds only if the person authorized it as a client; browser-based MCP
 * clients (CORS) need exactly that. An Origin that is no origin at all is refused.
 */
function rebindingRefusal(request: FastifyRequest, issuer: URL): string | undefined {
  const host = request.headers.host
  let hostname: string | undefined
  // The issuer's own host, as clients send it, needs no parsing.
  if (host === issuer.host) hostname = issuer.hostname
  else
    try {
      hostname = host ? new URL(`http://${host}`).hostname : undefined
    } catch {
      hostname = undefined
    }
  if (hostname !== issuer.hostname) return `Invalid Host header: ${host ?? '(none)'}`
  const origin = request.headers.origin
  if (origin !== undefined && !ORIGIN.test(origin)) return `Invalid Origin header: ${origin}`
  return undefined
}

const rpcDocument = (summary: string, operationId: string, method: 'post' | 'get' | 'delete') => ({
  [method]: {
    operationId,
    summary,
    tags: ['mcp'],
    security: [{ oauth2: [] }],
    responses: {
      '200': {
        description: 'JSON-RPC response (MCP)',
        content: { 'application/json': { schema: { type: 'object' } } },
      },
      ...(method === 'post'
        ? {
            '202': { description: 'A notification or response was accepted' },
            '400': {
              description:
                'JSON-RPC error: unreadable body, a 2026-07-28 envelope or header that is missing, unsupported (-32022) or disagrees with the body (-32020)',
            },
            '401': { description: 'No token, or one not issued for <issuer>/mcp' },
            '403': { description: 'The token lacks a scope the tool call needs (step-up)' },
            '404': { description: 'JSON-RPC -32601: a method 2026-07-28 does not have' },
          }
        : {
            '405': { description: 'The endpoint is stateless: no server-sent stream, no session' },
          }),
    },
  },
})

/**
 * The school over MCP: `POST /mcp` speaks the Streamable HTTP transport of the official SDK,
 * MCP 2026-07-28 and the 2025 revisions on the same URL (mcp-exchange.ts), statelessly (a
 * fresh server for every request, so any instance answers any request). Its tools are the
 * API's operations (src/mcp). Authorization follows the MCP specification, in both eras:
 * no token is a 401 challenge naming the protected resource metadata at
 * `/.well-known/oauth-protected-resource/mcp`; only tokens issued for `<issuer>/mcp` are
 * accepted; a tool call needing a scope the role allows but the token lacks is a 403
 * step-up challenge.
 */
export const mcpRoutes: RouteModule = {
  openapi: {
    [MCP_PATH]: {
      ...rpcDocument(
        'Model Context Protocol endpoint (Streamable HTTP, stateless; MCP 2026-07-28 and 2025)',
        'postMcp',
        'post',
      ),
      ...rpcDocument('No server-sent event stream: 405', 'getMcp', 'get'),
      ...rpcDocument('No session to end: 405', 'deleteMcp', 'delete'),
    },
    [MCP_METADATA_PATH]: {
      get: {
        operationId: 'getMcpProtectedResourceMetadata',
        summary: 'Protected resource metadata of the MCP endpoint (RFC 9728)',
        tags: ['discovery'],
        responses: {
          '200': {
            description: 'Protected resource metadata (RFC 9728)',
            content: { 'application/json': { schema: { type: 'object' } } },
          },
        },
      },
    },
  },
  register(app, deps) {
    const { issuer } = deps.config
    const issuerUrl = new URL(issuer)
    const resource: ProtectedResource = {
      identifier: mcpResourceOf(issuer),
      metadata: `${issuer}${MCP_METADATA_PATH}`,
    }
    const operations = apiOperations(deps)
    const tools = new Map<string, SchoolTool>(schoolTools(operations).map((t) => [t.name, t]))
    const metadata = JSON.stringify(mcpProtectedResourceMetadata(issuer))
    const exchange = mcpExchange(`${issuer}${MCP_PATH}`, deps.logger)
    // The state a question carries through the agent's client lasts as long as its approval.
    const states = createRequestStateCodec<AskedState>({
      key: deps.requestStateKey,
      ttlSeconds: deps.config.lifetimes.approval,
    })
    app.addHook('onClose', () => exchange.close())

    app.get(MCP_METADATA_PATH, async (_request, reply) =>
      reply.header('cache-control', 'public, max-age=300').type('application/json').send(metadata),
    )

    void app.register(async (mcp) => {
      // The body is read as text and parsed here, so a malformed one is JSON-RPC's parse error.
      mcp.removeContentTypeParser('application/json')
      mcp.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
        done(null, body),
      )
      const notAllowed = async (request: FastifyRequest, reply: FastifyReply) => {
        const refusal = rebindingRefusal(request, issuerUrl)
        if (refusal) return rpcError(reply, 403, -32000, refusal)
        void reply.header('allow', 'POST')
        return rpcError(reply, 405, -32000, 'Method not allowed: this MCP endpoint is stateless')
      }
      mcp.get(MCP_PATH, notAllowed)
      mcp.delete(MCP_PATH, notAllowed)

      const bodyLimit = mcpBodyLimit(deps.config.uploadMaxBytes)
      // A body beyond it is answered as the endpoint answers what it cannot read: a JSON-RPC
      // error (with 413), not the API's problem document.
      mcp.setErrorHandler<FastifyError>((error, request, reply) =>
        error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
          ? rpcError(
              reply,
              413,
              -32600,
              `Request too large: a body to this endpoint may be at most ${bodyLimit} bytes`,
            )
          : handleError(error, request, reply, deps.school),
      )
      mcp.post(MCP_PATH, { bodyLimit }, async (request, reply) => {
        const refusal = rebindingRefusal(request, issuerUrl)
        if (refusal) return rpcError(reply, 403, -32000, refusal)
        // A small body is parsed before the token is checked, so that the record a lone
        // read names comes with the token check in one statement (call-prefetch.ts); a larger
        // one only once the caller is known.
        const text = typeof request.body === 'string' ? request.body : ''
        let body = text.length <= PREFETCH_BODY_LIMIT ? readRpc(text) : undefined
        const prefetched =
          body === undefined || body === PARSE_ERROR ? undefined : callPrefetch(tools, body.value)
        const caller = await identifyCaller(
          request.headers.authorization,
          deps,
          issuer,
          resource,
          prefetched?.companion,
        )
        if (caller.kind === 'anonymous')
          throw new ProblemError(
            401,
            {
              code: 'unauthenticated',
              title: 'Unauthorized',
              detail: `the MCP endpoint needs an access token issued for ${resource.identifier}`,
            },
            {
              'www-authenticate': bearerChallenge(issuer, {
                scope: MCP_CHALLENGE_SCOPES.join(' '),
                resourceMetadata: resource.metadata,
              }),
            },
          )
        const surface = surfaceOf(request.query as Record<string, string | string[] | undefined>)
        if ('refused' in surface) return rpcError(reply, 400, -32602, surface.refused)
        body ??= readRpc(text)
        if (body === PARSE_ERROR)
          return rpcError(reply, 400, -32700, 'Parse error: the body is not one JSON value')
        const needed = stepUps(tools, caller, body.value)
        if (needed.length > 0) {
          const missing = [...new Set(needed.flatMap((s) => s.scopes))]
          // A refused write is counted, as REST counts one (the activity record): once for
          // the request, however many calls a batch holds.
          const write = needed.find(({ tool }) => tool.operation.effect !== 'read')
          if (write)
            await countRefused(deps, write.tool.operation, caller, 403, 'insufficient_scope')
          // The scopes already granted go along: clients of MCP 2025-11-25 ask for exactly
          // the challenge's scopes, and would otherwise lose them.
          const scope = [...new Set([...caller.scopes, ...missing])].join(' ')
          throw new ProblemError(
            403,
            {
              code: 'insufficient_scope',
              error: 'insufficient_scope',
              title: 'Forbidden',
              detail: `this call needs the ${missing.join(' ')} scope, which your role allows: authorize again with it`,
              required_scopes: missing,
            },
            {
              'www-authenticate': bearerChallenge(issuer, {
                error: 'insufficient_scope',
                scope,
                resourceMetadata: resource.metadata,
              }),
            },
          )
        }
        return exchange.answer(request, reply, body.value, {
          tools,
          surface,
          operations,
          caller,
          countRefusal: (operation, code) => countRefused(deps, operation, caller, 403, code),
          requestId: request.id,
          clientAddress: request.ip,
          ...(prefetched && { prefetched }),
          approvals: {
            era: request.headers['mcp-protocol-version'] === '2025-11-25' ? '2025-11-25' : 'older',
            states,
            answer: (approvalId, accept) => answerInClient(deps, approvalId, caller, accept),
          },
          logger: deps.logger,
          version: SERVER_VERSION,
        })
      })
    })
  },
}
