import type { AppDeps } from '../../app-deps.js'
import { type Caller, requireScope, type TokenCaller } from '../caller.js'
import {
  etagOfJson,
  type FieldError,
  payloadTooLarge,
  requireJsonContent,
  requireObject,
} from '../conventions.js'
import { ProblemError } from '../problem.js'
import { checkQuery, type QueryMember, type QueryRules, throwIfAny } from './endpoint-query.js'
import type { Field, JsonSchema, Row } from './fields.js'
import { inputSchemaOf } from './input-schema.js'
import { IF_NONE_MATCH_PARAMETER, NOT_MODIFIED_RESPONSE } from './not-modified.js'
import {
  type ApiOperation,
  type BodyLimit,
  EFFECT_OF_METHOD,
  type Endpoint,
  type HttpMethod,
  type OperationEffect,
  type OperationInput,
  type OperationResult,
  pathParams,
} from './operation.js'
import { problemResponses } from './problem-response.js'
import { checkMembers, membersSchema } from './structures.js'

type Members = Readonly<Record<string, Field>>

/** What a hand-written operation's `run` receives: its input checked against the declaration. */
export interface EndpointContext<C extends Caller = TokenCaller> {
  readonly deps: AppDeps
  /** The operation's name (`storage.upload`): what the activity record calls a change. */
  readonly operation: string
  /** The token caller holding `scope` (a public endpoint: whoever calls, maybe anonymous). */
  readonly caller: C
  /** The path parameters (checked by `params` members where declared). */
  readonly params: Readonly<Record<string, string>>
  /** The `query` members, parsed; absent ones missing (or their defaults). */
  readonly query: Readonly<Record<string, unknown>>
  /** The `body` members, parsed (an empty object when an optional body was not sent). */
  readonly body: Readonly<Record<string, unknown>>
  /** The raw body's bytes, within the limit (endpoints declaring `rawBody`; else empty). */
  readonly bytes: Buffer
  /** The input as the binding gave it (If-Match, Idempotency-Key, the raw body …). */
  readonly input: OperationInput
  readonly now: number
}

/** The success response: its status, what it means, and the JSON Schema of its body. */
export interface EndpointOutput {
  readonly status?: number
  readonly description: string
  /** The body's schema; absent when the answer has no body (204). */
  readonly schema?: JsonSchema
  /** Documents the ETag header the answer carries. */
  readonly etag?: boolean
  /** Documents the Location header the answer carries (a create). */
  readonly location?: boolean
}

/**
 * A raw (non-JSON) body: a file as sent, or a form the run parses itself. The binding reads
 * at most `limit` bytes (413 beyond) and hands them over; the run checks the media type.
 */
export interface RawBody<C extends Caller = TokenCaller> {
  /** The media types documented, each with its schema (a file: {@link BINARY}). */
  readonly mediaTypes: Readonly<Record<string, JsonSchema>>
  /**
   * The most bytes taken, decided from the checked input before the body is read (the
   * purpose in the query …); throws the problem a request refused up front gets.
   */
  limit(context: Omit<EndpointContext<C>, 'body' | 'bytes'>): BodyLimit
}

/** What a check made before the input is read receives: who calls, and the raw input. */
export interface EndpointCall<C extends Caller = TokenCaller> {
  readonly deps: AppDeps
  readonly caller: C
  readonly input: OperationInput
  readonly now: number
}

/** The schema of a raw file body. */
export const BINARY: JsonSchema = { type: 'string', format: 'binary' }

interface EndpointCommon {
  /** `<collection>.<operation>`, e.g. 'enrollments.progress'; the MCP tool name replaces '.'. */
  readonly name: string
  readonly method: HttpMethod
  /** Fastify-style: '/api/v1/enrollments/:id/progress'. */
  readonly path: string
  /** The OpenAPI operationId, e.g. 'getEnrollmentProgress'. */
  readonly operationId: string
  readonly summary: string
  readonly description?: string
  readonly tags: readonly string[]
  /** Defaults to the method's: GET reads, DELETE deletes, the others write. */
  readonly effect?: OperationEffect
  /** The roles that may call it at all, when fewer than the scope's (checked in `before` or `run`). */
  readonly roles?: readonly string[]
  /** Path parameters with their own checks; undeclared ones are plain strings. */
  readonly params?: Members
  readonly query?: Readonly<Record<string, QueryMember>>
  /** How a bad query is answered (default: 422, unknown parameters refused). */
  readonly queryRules?: QueryRules
  /** The JSON object body's members; absent when the operation takes no body. */
  readonly body?: Members
  /** What the JSON body's schema says beyond its members (e.g. which of them go together). */
  readonly bodyDescription?: string
  /** Whether a body must be sent (default true when `body` is declared). */
  readonly bodyRequired?: boolean
  /** Documents the If-Match header (the run checks it against the current ETag). */
  readonly ifMatch?: boolean
  /** Documents the Idempotency-Key header (the run passes it to `withIdempotency`). */
  readonly idempotent?: boolean
  /** The largest JSON body accepted, in bytes (413 beyond); the binding's default when absent. */
  readonly jsonBodyLimit?: number
  /** The success response, or each of them (a create answering 200 for a known record). */
  readonly output: EndpointOutput | readonly EndpointOutput[]
  /** Problem statuses the operation answers, and what each means here. */
  readonly problems: Readonly<Record<string, string>>
}

/** An operation that needs a token holding `scope`; the builder checks it before `run`. */
export interface ScopedEndpoint extends EndpointCommon {
  readonly scope: string
  readonly public?: false
  readonly rawBody?: RawBody<TokenCaller>
  /**
   * Checks run after the scope and before the input is read (a role rule, a rate limit), so
   * a caller refused here learns nothing of the input's checks, and every call is counted.
   */
  before?(call: EndpointCall<TokenCaller>): void | Promise<void>
  run(context: EndpointContext<TokenCaller>): Promise<OperationResult>
}

/** An operation anyone may call (the run decides what each caller sees). */
export interface PublicEndpoint extends EndpointCommon {
  /** The scope that shows more than the public answer, for the document. */
  readonly scope?: string
  readonly public: true
  readonly rawBody?: RawBody<Caller>
  /** Checks run before the input is read (a rate limit), as for a scoped endpoint. */
  before?(call: EndpointCall<Caller>): void | Promise<void>
  run(context: EndpointContext<Caller>): Promise<OperationResult>
}

/**
 * A JSON answer: `cache-control: no-store` like every API answer, and its ETag when asked,
 * computed over the JSON that is sent (serialised once, for the ETag and the body alike).
 */
export function jsonAnswer(
  body: unknown,
  options: { status?: number; etag?: boolean; headers?: Record<string, string> } = {},
): OperationResult {
  const json = options.etag ? JSON.stringify(body) : undefined
  return {
    status: options.status ?? 200,
    body,
    ...(json !== undefined && { json, etag: etagOfJson(json) }),
    headers: { 'cache-control': 'no-store', ...options.headers },
  }
}

/** The OpenAPI response of a success output. */
function responseOf({ description, schema, etag, location }: EndpointOutput) {
  const headers = {
    ...(etag && { ETag: { schema: { type: 'string' } } }),
    ...(location && { Location: { schema: { type: 'string' } } }),
  }
  return {
    description,
    ...(Object.keys(headers).length > 0 && { headers }),
    ...(schema && { content: { 'application/json': { schema } } }),
  }
}

/** No bytes: a raw body's when none was sent, every other operation's (nothing to change in it). */
const NO_BYTES = Buffer.alloc(0)

/** The raw body as bytes within the limit: 400 when none were handed over, 413 beyond it. */
function bytesOf(body: unknown, limit: BodyLimit): Buffer {
  if (body === undefined || body === null) return NO_BYTES
  if (!(body instanceof Uint8Array))
    throw new ProblemError(400, {
      code: 'invalid_request',
      title: 'Bad Request',
      detail: 'the body of this operation is raw bytes, not JSON',
    })
  if (body.length > limit.maxBytes) throw payloadTooLarge(limit.detail)
  return Buffer.isBuffer(body) ? body : Buffer.from(body)
}

/**
 * Declares a hand-written operation from its input and output shapes: the same members
 * validate the input and write the OpenAPI entry (parameters, request body, responses) and
 * the input schema other bindings use, so no JSON Schema is written twice.
 */
export function defineEndpoint(declaration: ScopedEndpoint | PublicEndpoint): Endpoint {
  const d = declaration
  const names = pathParams(d.path)
  const header = (name: string) => ({
    name,
    in: 'header',
    required: false,
    schema: { type: 'string' },
  })
  const outputs = Array.isArray(d.output) ? d.output : [d.output as EndpointOutput]
  // A GET answering an ETag is conditional: If-None-Match, and 304 while the copy is current.
  const conditional = d.method === 'GET' && outputs.some((o) => o.etag)
  const parameters: Array<Record<string, unknown>> = [
    ...names.map((name) => {
      const { description, ...schema } = d.params?.[name]?.schema() ?? { type: 'string' }
      return {
        name,
        in: 'path',
        required: true,
        schema,
        ...(description !== undefined && { description }),
      }
    }),
    ...Object.entries(d.query ?? {}).map(([name, member]) => {
      const { description, ...schema } = member.schema()
      const { required } = member.options
      return {
        name,
        in: 'query',
        // A list in the query is comma-separated (`fields=id,title`), as resources take it.
        ...(schema.type === 'array' && { style: 'form', explode: false }),
        ...(required !== undefined && { required }),
        ...(description !== undefined && { description }),
        schema,
      }
    }),
    ...(d.ifMatch ? [header('If-Match')] : []),
    ...(conditional ? [IF_NONE_MATCH_PARAMETER] : []),
    ...(d.idempotent ? [header('Idempotency-Key')] : []),
  ]
  const bodyRequired = d.body !== undefined && d.bodyRequired !== false
  const members = d.body && membersSchema(d.body)
  const bodySchema =
    members && d.bodyDescription !== undefined
      ? (({ type, additionalProperties, ...rest }) => ({
          type,
          additionalProperties,
          description: d.bodyDescription,
          ...rest,
        }))(members)
      : members
  const content = d.rawBody
    ? Object.fromEntries(Object.entries(d.rawBody.mediaTypes).map(([t, schema]) => [t, { schema }]))
    : bodySchema && { 'application/json': { schema: bodySchema } }
  // A public operation takes no token, or any valid one (an invalid one is refused) or the scope's.
  const security = d.public
    ? [{}, { oauth2: d.scope !== undefined ? [d.scope] : [] }]
    : [{ oauth2: [d.scope] }]
  const openapi = {
    operationId: d.operationId,
    summary: d.summary,
    ...(d.description !== undefined && { description: d.description }),
    tags: d.tags,
    security,
    ...(parameters.length > 0 && { parameters }),
    ...(content && { requestBody: { required: d.rawBody ? true : bodyRequired, content } }),
    responses: {
      ...Object.fromEntries(outputs.map((o) => [String(o.status ?? 200), responseOf(o)])),
      ...(conditional && { '304': NOT_MODIFIED_RESPONSE }),
      ...problemResponses(d.problems),
    },
  }
  const spec = {
    name: d.name,
    method: d.method,
    path: d.path,
    summary: d.summary,
    ...(d.description !== undefined && { description: d.description }),
    ...(d.scope !== undefined && { scope: d.scope }),
    ...(d.public && { public: true }),
    effect: d.effect ?? EFFECT_OF_METHOD[d.method],
    ...(d.jsonBodyLimit !== undefined && { jsonBodyLimit: d.jsonBodyLimit }),
    ...(d.roles !== undefined && { roles: d.roles }),
    inputSchema: inputSchemaOf(
      parameters,
      bodySchema && { schema: bodySchema, required: bodyRequired },
    ),
    openapi,
  }

  /** The checked parts of the input, in the order a request is refused: path, query, body. */
  function checkInput(input: OperationInput) {
    const errors: FieldError[] = []
    const params: Record<string, string> = { ...input.params }
    for (const [name, member] of Object.entries(d.params ?? {}))
      member.parse(input.params[name], `params.${name}`, errors)
    throwIfAny(errors, 'params')
    const query = d.query ? checkQuery(d.query, input.query, d.queryRules) : {}
    let body: Row = {}
    if (d.body && (bodyRequired || (input.body !== undefined && input.body !== null))) {
      requireJsonContent(input.contentType)
      body = checkMembers(d.body, requireObject(input.body), 'body', errors) ?? {}
      throwIfAny(errors, 'body')
    }
    return { params, query, body }
  }

  /** The operation for callers as `callerOf` admits them (the scope check, or anyone). */
  function bound<C extends Caller>(
    deps: AppDeps,
    callerOf: (input: OperationInput) => C,
    raw: RawBody<C> | undefined,
    before: ((call: EndpointCall<C>) => void | Promise<void>) | undefined,
    run: (context: EndpointContext<C>) => Promise<OperationResult>,
  ): ApiOperation {
    const prepared = (input: OperationInput): EndpointContext<C> => {
      const caller = callerOf(input)
      const { params, query, body } = checkInput(input)
      return {
        deps,
        operation: d.name,
        caller,
        input,
        now: deps.clock.now(),
        params,
        query,
        body,
        bytes: NO_BYTES,
      }
    }
    return {
      ...spec,
      async run(input) {
        // The HTTP binding refuses a larger body before reading it; any other binding here.
        if (
          d.jsonBodyLimit !== undefined &&
          input.body !== undefined &&
          !Buffer.isBuffer(input.body) &&
          Buffer.byteLength(JSON.stringify(input.body)) > d.jsonBodyLimit
        )
          throw payloadTooLarge(`the body may be at most ${d.jsonBodyLimit} bytes`)
        // No hook, no wait: an `await` of nothing still costs every request a turn.
        if (before) await before({ deps, caller: callerOf(input), input, now: deps.clock.now() })
        const context = prepared(input)
        return run(raw ? { ...context, bytes: bytesOf(input.body, raw.limit(context)) } : context)
      },
      ...(raw && { bodyLimit: (input: OperationInput) => raw.limit(prepared(input)) }),
    }
  }

  return {
    ...spec,
    bind(deps: AppDeps) {
      const { issuer } = deps.config
      if (d.public) return bound(deps, (input) => input.caller, d.rawBody, d.before, d.run)
      const scoped = (input: OperationInput) => requireScope(input.caller, d.scope, issuer)
      return bound(deps, scoped, d.rawBody, d.before, d.run)
    },
  }
}
