import type { AppDeps } from '../../app-deps.js'
import { type Caller, requireScope } from '../caller.js'
import {
  etagOf,
  type FieldError,
  requireJsonContent,
  requireObject,
  validationFailed,
} from '../conventions.js'
import { type Field, fail, type JsonSchema } from './fields.js'
import { inputSchemaOf } from './input-schema.js'
import {
  type Endpoint,
  type HttpMethod,
  type OperationEffect,
  type OperationInput,
  type OperationResult,
  pathParams,
} from './operation.js'
import { problemResponses } from './problem-response.js'
import { checkMembers, membersSchema } from './structures.js'

export type TokenCaller = Extract<Caller, { kind: 'token' }>
type Members = Readonly<Record<string, Field>>

/** What a hand-written operation's `run` receives: its input checked against the declaration. */
export interface EndpointContext<C extends Caller = TokenCaller> {
  readonly deps: AppDeps
  /** The token caller holding `scope` (a public endpoint: whoever calls, maybe anonymous). */
  readonly caller: C
  /** The path parameters (checked by `params` members where declared). */
  readonly params: Readonly<Record<string, string>>
  /** The `query` members, parsed; absent ones missing (or their defaults). */
  readonly query: Readonly<Record<string, unknown>>
  /** The `body` members, parsed (an empty object when an optional body was not sent). */
  readonly body: Readonly<Record<string, unknown>>
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
}

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
  /** Path parameters with their own checks; undeclared ones are plain strings. */
  readonly params?: Members
  readonly query?: Members
  /** The JSON object body's members; absent when the operation takes no body. */
  readonly body?: Members
  /** Whether a body must be sent (default true when `body` is declared). */
  readonly bodyRequired?: boolean
  /** Documents the If-Match header (the run checks it against the current ETag). */
  readonly ifMatch?: boolean
  readonly output: EndpointOutput
  /** Problem statuses the operation answers, and what each means here. */
  readonly problems: Readonly<Record<string, string>>
}

/** An operation that needs a token holding `scope`; the builder checks it before `run`. */
export interface ScopedEndpoint extends EndpointCommon {
  readonly scope: string
  readonly public?: false
  run(context: EndpointContext<TokenCaller>): Promise<OperationResult>
}

/** An operation anyone may call (the run decides what each caller sees). */
export interface PublicEndpoint extends EndpointCommon {
  /** The scope that shows more than the public answer, for the document. */
  readonly scope?: string
  readonly public: true
  run(context: EndpointContext<Caller>): Promise<OperationResult>
}

const EFFECTS: Record<HttpMethod, OperationEffect> = {
  GET: 'read',
  POST: 'write',
  PUT: 'write',
  PATCH: 'write',
  DELETE: 'delete',
}

/** A JSON answer: `cache-control: no-store` like every API answer, and its ETag when asked. */
export function jsonAnswer(
  body: unknown,
  options: { status?: number; etag?: boolean; headers?: Record<string, string> } = {},
): OperationResult {
  return {
    status: options.status ?? 200,
    body,
    ...(options.etag && { etag: etagOf(body) }),
    headers: { 'cache-control': 'no-store', ...options.headers },
  }
}

/** Field errors of a part of the input, named without the part (`body.name` → `name`). */
function throwIfAny(errors: readonly FieldError[], part: string): void {
  if (errors.length === 0) return
  const prefix = `${part}.`
  const strip = (text: string) => (text.startsWith(prefix) ? text.slice(prefix.length) : text)
  throw validationFailed(
    errors.map((e) => ({ ...e, field: strip(e.field), message: strip(e.message) })),
  )
}

/** Query members from strings (HTTP) or JSON values (other bindings). */
function checkQuery(members: Members, query: Readonly<Record<string, unknown>>): Row {
  const errors: FieldError[] = []
  const out: Row = {}
  for (const [key, raw] of Object.entries(query)) {
    const member = members[key]
    if (!member) {
      fail(errors, key, 'unknown_parameter', `${key} is not a parameter of this operation`)
      continue
    }
    const value = typeof raw === 'string' ? member.parseQuery(raw) : member.parse(raw, key, errors)
    if (value === undefined && typeof raw === 'string')
      fail(errors, key, 'invalid_value', `${key} is not a valid value`)
    else if (value !== undefined) out[key] = value
  }
  for (const [key, member] of Object.entries(members)) {
    if (key in out || errors.some((e) => e.field === key)) continue
    if (member.options.required) fail(errors, key, 'required', `${key} is required`)
    else if (member.options.default !== undefined) out[key] = member.options.default
  }
  throwIfAny(errors, 'query')
  return out
}
type Row = Record<string, unknown>

/**
 * Declares a hand-written operation from its input and output shapes: the same members
 * validate the input and write the OpenAPI entry (parameters, request body, responses) and
 * the input schema other bindings use, so no JSON Schema is written twice.
 */
export function defineEndpoint(declaration: ScopedEndpoint | PublicEndpoint): Endpoint {
  const d = declaration
  const names = pathParams(d.path)
  const parameters: Array<Record<string, unknown>> = [
    ...names.map((name) => ({
      name,
      in: 'path',
      required: true,
      schema: d.params?.[name]?.schema() ?? { type: 'string' },
    })),
    ...Object.entries(d.query ?? {}).map(([name, member]) => {
      const { description, ...schema } = member.schema()
      return {
        name,
        in: 'query',
        ...(member.options.required && { required: true }),
        schema,
        ...(description !== undefined && { description }),
      }
    }),
    ...(d.ifMatch
      ? [{ name: 'If-Match', in: 'header', required: false, schema: { type: 'string' } }]
      : []),
  ]
  const bodyRequired = d.body !== undefined && d.bodyRequired !== false
  const bodySchema = d.body && membersSchema(d.body)
  const { status = 200, description, schema, etag } = d.output
  const security = d.public
    ? [{}, ...(d.scope !== undefined ? [{ oauth2: [d.scope] }] : [])]
    : [{ oauth2: [d.scope] }]
  const openapi = {
    operationId: d.operationId,
    summary: d.summary,
    ...(d.description !== undefined && { description: d.description }),
    tags: d.tags,
    security,
    ...(parameters.length > 0 && { parameters }),
    ...(bodySchema && {
      requestBody: {
        required: bodyRequired,
        content: { 'application/json': { schema: bodySchema } },
      },
    }),
    responses: {
      [String(status)]: {
        description,
        ...(etag && { headers: { ETag: { schema: { type: 'string' } } } }),
        ...(schema && { content: { 'application/json': { schema } } }),
      },
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
    effect: d.effect ?? EFFECTS[d.method],
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
    const query = d.query ? checkQuery(d.query, input.query) : {}
    let body: Row = {}
    if (d.body && (bodyRequired || (input.body !== undefined && input.body !== null))) {
      requireJsonContent(input.contentType)
      body = checkMembers(d.body, requireObject(input.body), 'body', errors) ?? {}
      throwIfAny(errors, 'body')
    }
    return { params, query, body }
  }

  return {
    ...spec,
    bind(deps: AppDeps) {
      const { issuer } = deps.config
      return {
        ...spec,
        async run(input: OperationInput): Promise<OperationResult> {
          const now = deps.clock.now()
          if (d.public)
            return d.run({ deps, caller: input.caller, input, now, ...checkInput(input) })
          const caller = requireScope(input.caller, d.scope, issuer)
          return d.run({ deps, caller, input, now, ...checkInput(input) })
        },
      }
    },
  }
}
