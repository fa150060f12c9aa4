import type { CompiledQuery } from 'kysely'
import type { AppDeps } from '../../app-deps.js'
import type { Caller } from '../caller.js'
import type { JsonSchema, Row } from './fields.js'

/**
 * What an operation is called with, whatever carries it (an HTTP route, an MCP tool call, a
 * test): who is calling and the request's parts, already separated. Nothing here is HTTP's.
 */
export interface OperationInput {
  readonly caller: Caller
  /** The path parameters (`:id` of '/api/v1/courses/:id' as `id`). */
  readonly params: Readonly<Record<string, string>>
  /** The query parameters, as strings (a repeated one as a list). */
  readonly query: Readonly<Record<string, unknown>>
  /** The parsed JSON body, raw bytes for uploads, or undefined when none was sent. */
  readonly body?: unknown
  /** The media type the body was sent as (a JSON write refuses anything but application/json). */
  readonly contentType?: string
  /** The name a raw body was sent under (over HTTP: a Content-Disposition request header). */
  readonly filename?: string
  readonly ifMatch?: string
  readonly ifNoneMatch?: string
  readonly idempotencyKey?: string
  /**
   * Validate and carry out the write inside its transaction, then roll it back: the result
   * says what would have been (the record after the change, or the one a delete would
   * remove), nothing is kept. Only operations whose spec says `dryRun` honour it.
   */
  readonly dryRun?: boolean
  /** The address the call came from, when the binding knows it (per-address rate limits). */
  readonly clientAddress?: string
  /**
   * What the operation's `prefetch` read for these parameters, when the binding read it with
   * the caller's token (null: no row); undefined when it did not.
   */
  readonly prefetched?: Row | null
}

/** What an operation answers: a status, a JSON body, and the metadata beside it. */
export interface OperationResult {
  readonly status: number
  /** The JSON value answered; absent for 204. */
  readonly body?: unknown
  /** The body already serialised as JSON (an ETag is computed over it); wins over `body`. */
  readonly json?: string
  /** A strong ETag of the body. */
  readonly etag?: string
  /** The absolute URL of a record a create made. */
  readonly location?: string
  /** Further response metadata: cache-control, data-visibility, idempotent-replayed, retry-after … */
  readonly headers?: Readonly<Record<string, string>>
  /**
   * A page of a list answered as `json`: its body's `next_cursor` (null on the last page), for
   * a binding that tells it beside the JSON without parsing it (MCP's notes to the model).
   */
  readonly page?: { readonly nextCursor: string | null }
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** What an operation does to the school's data (an MCP binding maps it to tool annotations). */
export type OperationEffect = 'read' | 'write' | 'delete'

/** The effect an operation has unless it says otherwise: GET reads, DELETE deletes. */
export const EFFECT_OF_METHOD: Readonly<Record<HttpMethod, OperationEffect>> = {
  GET: 'read',
  POST: 'write',
  PUT: 'write',
  PATCH: 'write',
  DELETE: 'delete',
}

/** Everything known about an operation without the application: enough to document it. */
export interface OperationSpec {
  /** `<collection>.<operation>`, e.g. 'courses.list', 'courses.publish'; unique in the API. */
  readonly name: string
  readonly method: HttpMethod
  /** Fastify-style: '/api/v1/courses/:id'. */
  readonly path: string
  readonly summary: string
  readonly description?: string
  /** The scope a token needs; absent when none is (the API index). */
  readonly scope?: string
  /** Callers without the scope (anonymous included) may call it and get the public projection. */
  readonly public?: boolean
  readonly effect: OperationEffect
  /** Whether `run` honours `input.dryRun` (a write rehearsed in a rolled-back transaction). */
  readonly dryRun?: boolean
  /** The roles that may call it at all, when fewer than the scope's (a resource's writeRoles). */
  readonly roles?: readonly string[]
  /** The largest JSON body accepted, in bytes (413 beyond); the binding's default when absent. */
  readonly jsonBodyLimit?: number
  /**
   * The input as one JSON Schema object: `params`, `query` and `body` members, each present
   * when the operation takes it, for bindings that take one JSON argument (MCP tools).
   */
  readonly inputSchema: JsonSchema
  /** The OpenAPI operation object of `method` under `openapiPath(path)`. */
  readonly openapi: Readonly<Record<string, unknown>>
}

/**
 * The largest JSON body an operation takes when it declares no `jsonBodyLimit` (64 KiB):
 * every binding holds it (413 beyond), over HTTP as over MCP.
 */
export const JSON_BODY_LIMIT = 64 * 1024

/** How much of a raw body an operation takes, and what a larger one is told (413). */
export interface BodyLimit {
  readonly maxBytes: number
  /** The problem detail beyond the limit, e.g. 'files for avatar may be at most 2097152 bytes'. */
  readonly detail: string
}

/** An operation of the API, its dependencies bound: a function from a caller and input to a result. */
export interface ApiOperation extends OperationSpec {
  run(input: OperationInput): Promise<OperationResult>
  /**
   * The row `run` reads first whatever the caller (the record a GET names), as one statement
   * a binding may run together with the check of the caller's token, in one round trip, and
   * hand over as `input.prefetched`. Read before the token is known to be good: `run` uses
   * it only after its own checks of the caller, as it would its own read.
   */
  prefetch?(params: Readonly<Record<string, string>>): CompiledQuery<Row>
  /**
   * Present when the operation takes a raw (non-JSON) body: checks everything but the body
   * (caller, path, query, media type), throwing the problem a refused request gets, and
   * answers how many bytes the body may have, before any is read. A binding reads at most
   * that many (413 beyond) and passes them to `run` as `body`, a Buffer.
   */
  bodyLimit?(input: OperationInput): BodyLimit
}

/** A hand-written operation as declared: documented without the application, bound to it later. */
export interface Endpoint extends OperationSpec {
  bind(deps: AppDeps): ApiOperation
}

/** The tool name another binding gives an operation: 'courses.list' → 'courses_list'. */
export const toolNameOf = (operation: Pick<OperationSpec, 'name'>): string =>
  operation.name.replaceAll('.', '_')

/** '/api/v1/courses/:id' → '/api/v1/courses/{id}', as OpenAPI writes a path. */
export const openapiPath = (path: string): string => path.replace(/:(\w+)/g, '{$1}')

/** The names of a path's parameters, in order. */
export const pathParams = (path: string): string[] =>
  [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!)

/**
 * The path with its parameters filled in (each percent-encoded), e.g. the scope of an
 * Idempotency-Key: equal to the request path whenever the values needed no encoding.
 */
export const filledPath = (path: string, params: Readonly<Record<string, string>>): string =>
  path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''))

/**
 * The OpenAPI path items of operations: each operation under its path, in declaration order,
 * added to the methods `base` already documents there (a resource's list beside a POST).
 */
export function openapiPathsOf(
  operations: readonly OperationSpec[],
  base: Readonly<Record<string, Record<string, unknown>>> = {},
): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = { ...base }
  for (const operation of operations) {
    const path = openapiPath(operation.path)
    paths[path] = { ...paths[path], [operation.method.toLowerCase()]: operation.openapi }
  }
  return paths
}
