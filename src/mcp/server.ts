import {
  type CacheHint,
  type InputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
  type RequestStateCodec,
  ResourceNotFoundError,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server'
import { ApprovalRequiredError } from '../api/approvals/approval-problems.js'
import type { TokenCaller } from '../api/caller.js'
import { payloadTooLarge } from '../api/conventions.js'
import {
  type ApiOperation,
  JSON_BODY_LIMIT,
  type OperationInput,
  type OperationResult,
} from '../api/framework/operation.js'
import { ProblemError } from '../api/problem.js'
import type { Logger } from '../platform/logger.js'
import { isUnavailable, UNAVAILABLE_RETRY_AFTER } from '../storage/unavailable.js'
import {
  type AskedState,
  type Asking,
  askApproval,
  carriesAnswer,
  elicitationModes,
  takeAnswer,
} from './approval-asks.js'
import { type CallPrefetch, prefetchedFor } from './call-prefetch.js'
import { CATALOGUE_TOOLS, type CatalogueTool } from './catalogue-tools.js'
import { decodeToolFile } from './file-arguments.js'
import { dataModel, SCHOOL_RESOURCES, scopeTable } from './school-resources.js'
import { listedTools, type Surface } from './surface.js'
import { toolAccess } from './tool-access.js'
import { type ToolInput, toolInput } from './tool-arguments.js'
import {
  type CallAnswer,
  type ToolResult,
  toolProblem,
  toolResultValue,
  toolSuccess,
} from './tool-results.js'
import { DATA_NOT_INSTRUCTIONS, listedAnnotations, type SchoolTool } from './tools.js'

export interface McpContext {
  /** Every operation's tool, listed or not (any may be called). */
  readonly tools: ReadonlyMap<string, SchoolTool>
  /** What tools/list shows this request (the core, toolsets, read-only). */
  readonly surface: Surface
  readonly operations: readonly ApiOperation[]
  readonly caller: TokenCaller
  /** Counts a call refused before its operation ran (403 with `code`), as REST counts it. */
  readonly countRefusal?: (operation: ApiOperation, code: string) => Promise<void>
  readonly requestId: string
  /** The address the request came from, as REST operations get it (per-address limits). */
  readonly clientAddress?: string
  /** The row a lone call's operation reads first, read with the token (call-prefetch.ts). */
  readonly prefetched?: CallPrefetch
  /**
   * How a call held for a yes is asked (approval-asks.ts): the 2025 revision of a request
   * that has no envelope (a 2026-07-28 request's comes from its envelope), the codec of the
   * state a form carries, and how the person's answer in their client is recorded.
   */
  readonly approvals?: {
    readonly era: '2025-11-25' | 'older'
    readonly states: RequestStateCodec<AskedState>
    answer(approvalId: string, accept: boolean): Promise<boolean>
  }
  readonly logger: Logger
  readonly version: string
}

const INSTRUCTIONS = [
  'Portico: the tools read and change one online school (courses, curriculum, people, sales, events, content) as the signed-in person, within the scopes they granted and what their role allows. Read portico://school/data-model for the kinds of records and how they relate.',
  'Lists answer one page (limit, default 20): when has_more is true, call again with cursor set to next_cursor. Use the filters, sort and fields (the names of the members you need, as an answer shows them; id and object always come) to keep answers small.',
  'Writes take dry_run: true to check and carry out the change inside a transaction that is then rolled back: nothing is written, and the answer shows what would be. A create takes idempotency_key: repeating the call with the same key and arguments within 24 h replays the first answer instead of writing twice. Ids are prefixed by their kind (crs_ a course, stu_ a student …); money is integer minor units with its ISO 4217 currency.',
  'A change the school wants a person to approve first is asked in your client (a form, or a page at Portico to open) or answered approval_required with its approval_url for the person to open; after their yes, repeat the same call, once.',
  DATA_NOT_INSTRUCTIONS,
].join(' ')

/**
 * Runs the operation of a tool call with the input REST would give it. A file (base64) is
 * handled as the REST binding handles a raw body: the operation checks everything else and
 * says how many bytes it takes (413 beyond, counted on the decoded size, known from the
 * base64's length) before the base64 is checked and decoded. A JSON body is held to the
 * operation's JSON limit, as over HTTP. Not itself async (its promise is the operation's, a
 * few turns of promises fewer): what it throws, callTool catches as it would the rejection.
 */
function runOperation(
  context: McpContext,
  operation: ApiOperation,
  input: ToolInput,
): Promise<OperationResult> {
  const prefetched = prefetchedFor(context.prefetched, operation, input.params)
  const base: OperationInput = {
    caller: context.caller,
    params: input.params,
    query: input.query,
    ...(input.idempotencyKey !== undefined && { idempotencyKey: input.idempotencyKey }),
    ...(input.dryRun && { dryRun: true }),
    ...(context.clientAddress !== undefined && { clientAddress: context.clientAddress }),
    ...(prefetched !== undefined && { prefetched }),
  }
  const { file } = input
  if (file && operation.bodyLimit) {
    const withFile: OperationInput = {
      ...base,
      contentType: file.mediaType,
      ...(input.filename !== undefined && { filename: input.filename }),
    }
    const limit = operation.bodyLimit(withFile)
    if (file.size > limit.maxBytes)
      throw payloadTooLarge(`${limit.detail}; this one has ${file.size}`)
    return operation.run({ ...withFile, body: decodeToolFile(file) })
  }
  if (input.body === undefined) return operation.run(base)
  const limit = operation.jsonBodyLimit ?? JSON_BODY_LIMIT
  if (Buffer.byteLength(JSON.stringify(input.body)) > limit)
    throw payloadTooLarge(`the body may be at most ${limit} bytes`)
  return operation.run({ ...base, body: input.body, contentType: 'application/json' })
}

/**
 * Runs one tool call; every failure becomes a tool error, never a transport error, but for a
 * call held for a yes that a 2025-11-25 client is asked to approve on a page (-32042).
 */
async function callTool(
  context: McpContext,
  tool: SchoolTool,
  args: Record<string, unknown>,
  asking: Asking | undefined,
): Promise<ToolResult | InputRequiredResult> {
  const access = toolAccess(tool, context.caller)
  if (access.kind !== 'allowed')
    await context.countRefusal?.(
      tool.operation,
      access.kind === 'refused' ? access.problem.code : 'insufficient_scope',
    )
  if (access.kind === 'refused') return toolProblem(403, access.problem, context.requestId)
  if (access.kind === 'step_up')
    return toolProblem(
      403,
      {
        code: 'insufficient_scope',
        error: 'insufficient_scope',
        title: 'Forbidden',
        detail: `this tool needs the ${access.scopes.join(' ')} scope`,
        required_scopes: access.scopes,
      },
      context.requestId,
    )
  let input: ToolInput | undefined
  try {
    input = toolInput(tool.arguments, args)
    const { approvals } = context
    // Only a retry carrying an answer waits for it (a turn of promises on every call else).
    const answered =
      approvals &&
      carriesAnswer(asking) &&
      (await takeAnswer(asking, tool, input, context.caller, approvals.answer, context.requestId))
    if (answered) return answered
    return toolSuccess(await runOperation(context, tool.operation, input))
  } catch (error) {
    if (error instanceof ApprovalRequiredError && input)
      return askApproval(
        asking,
        error.approval,
        toolProblem(error.status, error.fields, context.requestId),
        tool,
        input,
        context.caller,
        context.approvals?.states,
      )
    if (error instanceof ProblemError)
      return toolProblem(error.status, error.fields, context.requestId)
    if (isUnavailable(error))
      return toolProblem(
        503,
        {
          code: 'temporarily_unavailable',
          title: 'Service Unavailable',
          detail: `the database is unavailable; retry in ${UNAVAILABLE_RETRY_AFTER} s`,
        },
        context.requestId,
      )
    context.logger.error(
      { err: error, request_id: context.requestId, tool: tool.name },
      'mcp tool failed',
    )
    return toolProblem(
      500,
      {
        code: 'internal_error',
        title: 'Internal Server Error',
        detail: 'the call failed; nothing is known to have been written',
      },
      context.requestId,
    )
  }
}

/**
 * The revisions /mcp speaks, newest first: 2026-07-28 (a `_meta` envelope on every request,
 * no handshake) and the 2025 ones negotiated by `initialize`. The 2024 ones are not offered.
 */
export const MCP_PROTOCOL_VERSIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26']

const FIVE_MINUTES = 300_000

/**
 * What an error repeats of a name or URI the client sent: a body may be megabytes long (an
 * upload's), and an error is no place to send it back (twice: SEP-2164 puts a missing
 * resource's URI in the message and in `data.uri`).
 */
const ECHOED = 200
const LONGEST_URI = 2048
const CATALOGUE = new Map<string, CatalogueTool>(CATALOGUE_TOOLS.map((t) => [t.name, t]))
const echoed = (text: string) => (text.length > ECHOED ? `${text.slice(0, ECHOED)}…` : text)

/**
 * Cache hints of the 2026-07-28 results (the SDK puts them on that revision's wire only).
 * The tool list depends on the caller (their role), so it is private; the documents, the
 * list of them and the server's description are the same for everyone.
 */
const CACHE_HINTS: Record<
  | 'server/discover'
  | 'tools/list'
  | 'resources/list'
  | 'resources/read'
  | 'resources/templates/list',
  CacheHint
> = {
  'server/discover': { ttlMs: FIVE_MINUTES, cacheScope: 'public' },
  'tools/list': { ttlMs: FIVE_MINUTES, cacheScope: 'private' },
  'resources/list': { ttlMs: FIVE_MINUTES, cacheScope: 'public' },
  'resources/templates/list': { ttlMs: FIVE_MINUTES, cacheScope: 'public' },
  'resources/read': { ttlMs: FIVE_MINUTES, cacheScope: 'public' },
}

/** What tools/list answers a request: the tools of its surface, in a stable order. */
export function toolList(context: McpContext) {
  return {
    tools: listedTools(
      CATALOGUE_TOOLS,
      [...context.tools.values()],
      context.caller,
      context.surface,
    ).map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: ('inputSchema' in tool ? tool.inputSchema : tool.arguments.schema) as {
        type: 'object'
      },
      ...('outputSchema' in tool &&
        tool.outputSchema && { outputSchema: tool.outputSchema as { type: 'object' } }),
      annotations: listedAnnotations(tool.annotations),
    })),
  }
}

/** A tools/call of a catalogue tool or an operation's; undefined for a tool of no name known. */
export function toolCall(
  context: McpContext,
  name: string,
  args: Record<string, unknown>,
  asking: Asking | undefined = context.approvals && { era: context.approvals.era },
): Promise<CallAnswer> | undefined {
  const catalogue = CATALOGUE.get(name)
  if (catalogue)
    return catalogue.run(args, {
      tools: context.tools,
      caller: context.caller,
      requestId: context.requestId,
      call: (tool, given) => callTool(context, tool, given, asking),
    })
  const tool = context.tools.get(name)
  return tool && callTool(context, tool, args, asking)
}

/** How the client of a 2026-07-28 request may be asked, from its envelope and its retry. */
function modernAsking(context: ServerContext): Asking | undefined {
  const { envelope, inputResponses } = context.mcpReq
  if (!envelope) return undefined
  const state = context.mcpReq.requestState<AskedState>()
  return {
    era: '2026-07-28',
    ...elicitationModes(envelope as Record<string, unknown>),
    ...(inputResponses && { responses: inputResponses }),
    ...(typeof state === 'object' && state !== null && { state }),
  }
}

/**
 * The MCP server of one request (the endpoint is stateless, in both eras): the tools the
 * caller's role could ever use, in the order of the operations (stable), and the two
 * documents about the school's API.
 */
export function createMcpServer(context: McpContext): Server {
  const server = new Server(
    { name: 'portico', title: 'Portico school', version: context.version },
    {
      capabilities: { tools: { listChanged: false }, resources: {} },
      instructions: INSTRUCTIONS,
      supportedProtocolVersions: [...MCP_PROTOCOL_VERSIONS],
      cacheHints: CACHE_HINTS,
      // A form's state comes back from the client: its seal is checked before any handler.
      ...(context.approvals && {
        requestState: { verify: context.approvals.states.verify },
      }),
    },
  )
  server.setRequestHandler('tools/list', async () => toolList(context))
  server.setRequestHandler('tools/call', async (request, handling) => {
    const { name } = request.params
    const modern = modernAsking(handling)
    const answer = await (modern
      ? toolCall(context, name, request.params.arguments ?? {}, modern)
      : toolCall(context, name, request.params.arguments ?? {}))
    if (!answer)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${echoed(name)}`)
    return toolResultValue(await answer)
  })
  server.setRequestHandler('resources/list', async () => ({
    resources: [...SCHOOL_RESOURCES],
  }))
  server.setRequestHandler('resources/templates/list', async () => ({ resourceTemplates: [] }))
  server.setRequestHandler('resources/read', async (request) => {
    const { uri } = request.params
    const document =
      uri === 'portico://school/data-model'
        ? dataModel()
        : uri === 'portico://school/scopes'
          ? scopeTable(context.operations)
          : undefined
    if (!document && uri.length > LONGEST_URI)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Resource not found: no document has a URI of ${uri.length} characters`,
      )
    if (!document) throw new ResourceNotFoundError(uri)
    return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(document) }] }
  })
  return server
}
