import { ProtocolError } from '@modelcontextprotocol/server'
import { MCP_PROTOCOL_VERSIONS, type McpContext, toolCall, toolList } from './server.js'
import { toolResultJson } from './tool-results.js'

/**
 * The two requests agents send most, `tools/list` and `tools/call`, answered without the
 * SDK's web-standard transport when a 2025-era client sends them in their plain form: the
 * transport builds a Request, a Response, abort signals and errors for every request, and
 * cost a tool call four times the REST read it wraps (npm run bench, profiled). The answer is
 * the one the SDK gives, from the same functions (server.ts); test/mcp/direct-answers.test.ts
 * holds the two equal. Anything else (another method, a batch, a notification, `_meta`, an
 * unknown tool, no protocol version header, a 2026-07-28 request) goes to the SDK, which also
 * answers every malformed request with its specified error.
 */

/** The revisions answered here: those negotiated by `initialize` (the SDK's legacy era). */
const DIRECT_VERSIONS: ReadonlySet<string> = new Set(
  MCP_PROTOCOL_VERSIONS.filter((version) => version.startsWith('2025-')),
)

/** The members of a JSON-RPC request (the SDK's schema refuses any other). */
const REQUEST_MEMBERS: ReadonlySet<string> = new Set(['jsonrpc', 'id', 'method', 'params'])

export interface DirectHeaders {
  readonly accept: string | undefined
  readonly contentType: string | undefined
  readonly protocolVersion: string | undefined
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** `application/json`, with parameters or not, as the SDK's check reads a Content-Type. */
const isJson = (contentType: string | undefined) =>
  contentType === 'application/json' ||
  contentType?.split(';')[0]?.trim().toLowerCase() === 'application/json'

/** Lists kept serialised, per application's tools: at most this many surfaces each. */
const KEPT_LISTS = 256
const keptLists = new WeakMap<McpContext['tools'], Map<string, string>>()

/**
 * The tools/list result as JSON, made once per surface and caller's role and scopes (what the
 * list depends on): serialising the core's 19 tools and their schemas was a third of a
 * tools/list. The oldest kept list makes room when a new one is kept.
 */
function listedJson(context: McpContext): string {
  let kept = keptLists.get(context.tools)
  if (!kept) {
    kept = new Map()
    keptLists.set(context.tools, kept)
  }
  const { caller, surface } = context
  const key = [
    caller.user.role,
    surface.readOnly,
    [...surface.toolsets].sort().join(','),
    [...caller.scopes].sort().join(' '),
  ].join('|')
  let json = kept.get(key)
  if (json === undefined) {
    json = JSON.stringify(toolList(context))
    if (kept.size >= KEPT_LISTS) kept.delete(kept.keys().next().value ?? '')
    kept.set(key, json)
  }
  return json
}

/** The JSON text of the answer, or undefined when the SDK is to answer the request. */
export async function directAnswer(
  headers: DirectHeaders,
  body: unknown,
  context: McpContext,
): Promise<string | undefined> {
  const { accept } = headers
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return
  if (!isJson(headers.contentType)) return
  if (headers.protocolVersion === undefined || !DIRECT_VERSIONS.has(headers.protocolVersion)) return
  if (!isRecord(body) || body.jsonrpc !== '2.0') return
  if (Object.keys(body).some((key) => !REQUEST_MEMBERS.has(key))) return
  const { id, method, params } = body
  if (typeof id !== 'string' && !Number.isInteger(id)) return
  if (params !== undefined && !isRecord(params)) return
  if (method === 'tools/list') {
    if (params && Object.keys(params).some((key) => key !== 'cursor')) return
    if (params?.cursor !== undefined && typeof params.cursor !== 'string') return
    return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${listedJson(context)}}`
  }
  if (method !== 'tools/call' || !params || typeof params.name !== 'string') return
  if (Object.keys(params).some((key) => key !== 'name' && key !== 'arguments')) return
  if (params.arguments !== undefined && !isRecord(params.arguments)) return
  const answer = toolCall(context, params.name, params.arguments ?? {})
  if (!answer) return
  try {
    const result = toolResultJson(await answer)
    return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}`
  } catch (error) {
    // A protocol error a call throws on purpose (a 2025-11-25 client asked to approve on a
    // page, -32042) is answered as the SDK answers it.
    if (error instanceof ProtocolError)
      return JSON.stringify({
        jsonrpc: '2.0',
        id,
        error: {
          code: error.code,
          message: error.message,
          ...(error.data !== undefined && { data: error.data }),
        },
      })
    // A call fails as a tool error wherever it can (server.ts); what escapes that is answered
    // as the SDK answers a failed handler, a JSON-RPC internal error, and logged.
    context.logger.error({ err: error, request_id: context.requestId }, 'mcp tool failed')
    return JSON.stringify({
      jsonrpc: '2.0',
      id,
      error: { code: -32603, message: 'Internal error' },
    })
  }
}
