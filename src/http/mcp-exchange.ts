import {
  createMcpHandler,
  isLegacyRequest,
  type McpRequestContext,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { directAnswer } from '../mcp/direct-answers.js'
import { createMcpServer, type McpContext } from '../mcp/server.js'
import type { Logger } from '../platform/logger.js'

/**
 * One MCP exchange over HTTP, in whichever era the request speaks (the SDK's own
 * classification decides, so the routing can never disagree with it):
 *
 * - 2026-07-28 (a `_meta` envelope claim, or a modern `MCP-Protocol-Version` header): the
 *   SDK's `createMcpHandler`, which answers `server/discover`, checks the envelope and the
 *   standard headers (-32020, -32022, -32602 with their HTTP statuses), answers removed and
 *   unknown methods 404 / -32601, puts `resultType`, cache hints and the server's identity on
 *   results. Every error it answers carries the request's id.
 * - 2025-11-25, 2025-06-18, 2025-03-26 (no envelope: `initialize`, then requests): a fresh
 *   server on the SDK's streamable HTTP transport, stateless and answering plain JSON, as
 *   /mcp always has.
 *
 * Either way the server is made for the request from the caller's context, so any instance
 * answers any request.
 */
export interface McpExchange {
  answer(
    request: FastifyRequest,
    reply: FastifyReply,
    body: unknown,
    context: McpContext,
  ): Promise<FastifyReply>
  close(): Promise<void>
}

/** A complete answer of the 2025 era, read from the SDK's transport. */
interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly bytes: Buffer
}

/** A reply serializer for text already JSON: Fastify leaves the media type of its answer as set. */
const asIs = (payload: unknown) => payload as string

const bytesOf = async (response: Response): Promise<Buffer> =>
  Buffer.from(await response.arrayBuffer())

export function mcpExchange(url: string, logger: Logger): McpExchange {
  // The context of each request being served, found again by the factory from the request.
  const contexts = new WeakMap<Request, McpContext>()
  const serverFor = ({ requestInfo }: McpRequestContext) => {
    const context = requestInfo && contexts.get(requestInfo)
    if (!context) throw new Error('an MCP server was asked for outside of a request')
    return createMcpServer(context)
  }
  const modern = createMcpHandler(serverFor, {
    legacy: 'reject',
    onerror: (error) => logger.debug({ err: error }, 'mcp request refused'),
  })

  async function legacy(request: Request, body: unknown, context: McpContext): Promise<Answer> {
    const server = createMcpServer(context)
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    })
    try {
      await server.connect(transport)
      const response = await transport.handleRequest(request, { parsedBody: body })
      // Read before the transport closes, once, as the bytes sent: a JSON answer is complete
      // once they are (decoding and encoding it again cost a tenth of a tools/list).
      return { status: response.status, headers: response.headers, bytes: await bytesOf(response) }
    } finally {
      await transport.close()
      await server.close()
    }
  }

  return {
    async answer(request, reply, body, context) {
      const header = (name: string) => {
        const value = request.headers[name]
        return typeof value === 'string' ? value : undefined
      }
      const direct = await directAnswer(
        {
          accept: header('accept'),
          contentType: header('content-type'),
          protocolVersion: header('mcp-protocol-version'),
        },
        body,
        context,
      )
      // Sent as the string it is, through a serializer that leaves it so: Fastify would add
      // a charset to a string's JSON media type (the SDK answers without one), and copying it
      // into a Buffer instead cost a tool call 3 µs and an extra chunk for the socket's write.
      if (direct !== undefined)
        return reply
          .code(200)
          .header('content-type', 'application/json')
          .header('cache-control', 'no-store')
          .serializer(asIs)
          .send(direct)
      // Ends the exchange (an open stream included) when the client goes away.
      const abort = new AbortController()
      // A reply always closes; only one closed before it finished is a client gone away (an
      // abort costs a DOMException and the SDK's handling of it on every request otherwise).
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) abort.abort()
      })
      if (reply.raw.destroyed) abort.abort()
      const headers = new Headers()
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value === 'string') headers.set(name, value)
        else if (Array.isArray(value)) for (const v of value) headers.append(name, v)
      }
      const web = new Request(url, { method: request.method, headers, signal: abort.signal })
      // Kept until the request is collected: a streamed answer may make its server after
      // fetch has returned.
      contexts.set(web, context)
      const response: Answer | Response = (await isLegacyRequest(web, body))
        ? await legacy(web, body, context)
        : await modern.fetch(web, { parsedBody: body })
      // The SDK answers a failure of its own or of a handler as a bare 500 and tells only its
      // error hook (debug: it also hears every refused request); the log says which request.
      if (response.status >= 500)
        logger.error({ reqId: request.id, status: response.status }, 'mcp request failed')
      void reply.code(response.status)
      for (const [name, value] of response.headers)
        if (name !== 'content-length') void reply.header(name, value)
      void reply.header('cache-control', 'no-store')
      if (!(response instanceof Response))
        return reply.send(response.bytes.length === 0 ? undefined : response.bytes)
      // A stream (an answer that upgraded to server-sent events) is passed on as it comes.
      if (response.headers.get('content-type')?.startsWith('text/event-stream') && response.body)
        return reply.send(response.body)
      const bytes = await bytesOf(response)
      return reply.send(bytes.length === 0 ? undefined : bytes)
    },
    close: () => modern.close(),
  }
}
