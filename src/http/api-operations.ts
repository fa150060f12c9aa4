import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Caller } from '../api/caller.js'
import type { Row } from '../api/framework/fields.js'
import type { ApiOperation, OperationInput, OperationResult } from '../api/framework/operation.js'
import { ifNoneMatchHolds } from './conditional-get.js'
import { parseStrictJson } from './json-body.js'
import { bindRawOperations } from './raw-bodies.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is calling, decided by the /api/v1 hook before any operation runs. */
    caller?: Caller
    /** What the route's operation prefetches, read by the hook with the caller's token. */
    prefetched?: Row | null
  }
  interface FastifyContextConfig {
    /** The route's operation's `prefetch`, for the /api/v1 hook. */
    prefetch?: ApiOperation['prefetch']
  }
}

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name]
  return typeof value === 'string' ? value : undefined
}

/** The operation's input from an HTTP request whose caller the /api/v1 hook identified. */
export function inputOf(request: FastifyRequest): OperationInput {
  return {
    caller: request.caller ?? { kind: 'anonymous' },
    params: (request.params ?? {}) as Record<string, string>,
    query: (request.query ?? {}) as Record<string, unknown>,
    body: request.body,
    contentType: header(request, 'content-type'),
    ifMatch: header(request, 'if-match'),
    ifNoneMatch: header(request, 'if-none-match'),
    idempotencyKey: header(request, 'idempotency-key'),
    clientAddress: request.ip,
    ...(request.prefetched !== undefined && { prefetched: request.prefetched }),
  }
}

/**
 * Writes an operation's result as the HTTP response (problems are thrown, not returned). A
 * GET whose If-None-Match holds the answer's ETag is 304 with the same headers, no body.
 */
export function sendResult(
  reply: FastifyReply,
  result: OperationResult,
  ifNoneMatch?: string,
): FastifyReply {
  for (const [name, value] of Object.entries(result.headers ?? {})) reply.header(name, value)
  if (result.etag !== undefined) reply.header('etag', result.etag)
  if (
    result.status === 200 &&
    result.etag !== undefined &&
    (reply.request.method === 'GET' || reply.request.method === 'HEAD') &&
    ifNoneMatchHolds(ifNoneMatch, result.etag)
  )
    return reply.code(304).send()
  reply.code(result.status)
  if (result.location !== undefined) reply.header('location', result.location)
  if (result.json !== undefined)
    return reply.type('application/json; charset=utf-8').send(result.json)
  return reply.send(result.body)
}

/**
 * Serves operations as routes of the /api/v1 plugin: each at its method and path, its input
 * read from the request, its result written as the response. Operations taking a raw body
 * (`bodyLimit`) are served by {@link bindRawOperations}, with the bytes as their body.
 */
export function bindOperations(api: FastifyInstance, operations: readonly ApiOperation[]): void {
  // An empty body is no body (RFC 9110 §8.6), whatever its Content-Type says: a DELETE sent
  // with `content-type: application/json` and nothing else is not malformed JSON.
  api.removeContentTypeParser('application/json')
  api.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, body === '' ? undefined : parseStrictJson(body as string))
    } catch (error) {
      done(error as Error, undefined)
    }
  })
  const names = new Set<string>()
  for (const operation of operations) {
    if (names.has(operation.name)) throw new Error(`two operations are named ${operation.name}`)
    names.add(operation.name)
    if (operation.bodyLimit) continue
    api.route({
      method: operation.method,
      url: operation.path,
      ...(operation.jsonBodyLimit !== undefined && { bodyLimit: operation.jsonBodyLimit }),
      ...(operation.prefetch && { config: { prefetch: operation.prefetch } }),
      handler: async (request, reply) => {
        const input = inputOf(request)
        return sendResult(reply, await operation.run(input), input.ifNoneMatch)
      },
    })
  }
  const raw = operations.filter((operation) => operation.bodyLimit)
  if (raw.length > 0) bindRawOperations(api, raw)
}
