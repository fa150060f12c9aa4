import type { FieldError } from '../api/conventions.js'
import { validationFailed } from '../api/conventions.js'
import type { JsonSchema } from '../api/framework/fields.js'
import type { OperationSpec } from '../api/framework/operation.js'
import { tooLongForUrl, urlArgumentTooLong } from './argument-lengths.js'
import {
  fileArgumentSchemas,
  rawMediaTypesOf,
  readToolFile,
  type ToolFile,
} from './file-arguments.js'
import { portableSchema } from './portable-schema.js'

type Part = 'params' | 'query' | 'body'
const PARTS: readonly Part[] = ['params', 'query', 'body']

/** Where one tool argument goes in the operation's input. */
interface ArgumentTarget {
  readonly part: Part
  /** The member's name in that part; undefined for a part taken whole (a free-form body). */
  readonly member?: string
  /**
   * A query list sent comma-separated over HTTP (OpenAPI form style, not exploded, such as
   * `fields`): the argument's items are joined the same way.
   */
  readonly commaList?: boolean
}

/** A tool's arguments: one closed JSON Schema object, and where each argument goes. */
export interface ToolArguments {
  readonly schema: JsonSchema
  readonly targets: ReadonlyMap<string, ArgumentTarget>
  /** The body is required even when no body argument is given (a create, a PATCH). */
  readonly bodyRequired: boolean
  readonly hasBody: boolean
  readonly dryRun: boolean
  readonly idempotencyKey: boolean
  /**
   * The operation takes a file as its raw body: the media types it may be sent as
   * (`content_base64` and `media_type` carry it), and whether a `filename` argument names it
   * (when no query parameter of that name does).
   */
  readonly file?: { readonly mediaTypes: readonly string[]; readonly filename: boolean }
}

/**
 * A name clients accept for a tool argument (`^[A-Za-z0-9_.-]{1,64}$`): a range filter
 * `published_at[gte]` becomes `published_at_gte`.
 */
const argumentName = (name: string): string =>
  name
    .replace(/\[(\w+)\]/g, '_$1')
    .replace(/[^A-Za-z0-9_.-]/g, '_')
    .slice(0, 64)

/**
 * The `fields` argument as a tool shows it: member names, without the enum of every member
 * (a tenth of all tools' tokens); the operation checks them, and a wrong name answers the
 * names there are. The server's instructions say how projections work, once.
 */
const FIELDS_ARGUMENT: JsonSchema = {
  type: 'array',
  items: { type: 'string' },
  description: 'Members to keep',
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * The arguments of the tool of an operation: the members of its path parameters, query and
 * body merged into one closed object, from the same schema that documents the REST request.
 * A path parameter hides a query or body member of the same name (a nested list's filter,
 * a nested create's parent column: the path gives it). `dry_run` where the operation can
 * rehearse a write, `idempotency_key` for POST writes.
 */
export function toolArguments(operation: OperationSpec): ToolArguments {
  const input = operation.inputSchema
  const parts = (input.properties ?? {}) as Record<string, JsonSchema>
  const requiredParts = new Set((input.required as string[] | undefined) ?? [])
  const properties: Record<string, JsonSchema> = {}
  const required: string[] = []
  const targets = new Map<string, ArgumentTarget>()
  const fromPath = new Set<string>()
  for (const part of PARTS) {
    const schema = parts[part]
    if (!schema) continue
    const members = schema.properties
    if (!isObject(members)) {
      properties[part] = portableSchema(schema)
      targets.set(part, { part })
      if (requiredParts.has(part)) required.push(part)
      continue
    }
    const requiredMembers = new Set((schema.required as string[] | undefined) ?? [])
    for (const [member, memberSchema] of Object.entries(members)) {
      if (part !== 'params' && fromPath.has(member)) continue
      let name = argumentName(member)
      if (targets.has(name)) name = argumentName(`${part}_${member}`)
      if (targets.has(name)) throw new Error(`${operation.name}: two arguments named ${name}`)
      if (part === 'params') fromPath.add(member)
      properties[name] =
        part === 'query' && member === 'fields'
          ? FIELDS_ARGUMENT
          : portableSchema(memberSchema as JsonSchema)
      const commaList = part === 'query' && (memberSchema as JsonSchema).type === 'array'
      targets.set(name, { part, member, ...(commaList && { commaList }) })
      if (requiredParts.has(part) && requiredMembers.has(member)) required.push(name)
    }
  }
  const mediaTypes = rawMediaTypesOf(operation)
  const filename = mediaTypes !== undefined && !targets.has('filename')
  if (mediaTypes) {
    Object.assign(properties, fileArgumentSchemas(mediaTypes))
    required.push('content_base64', 'media_type')
    if (filename)
      properties.filename = {
        type: 'string',
        description: 'The file’s name (as REST takes it in Content-Disposition)',
      }
  }
  const dryRun = operation.dryRun === true
  const idempotencyKey = operation.method === 'POST' && operation.effect !== 'read'
  if (dryRun)
    // Both said once, in the server's instructions.
    properties.dry_run = { type: 'boolean' }
  if (idempotencyKey) properties.idempotency_key = { type: 'string', maxLength: 255 }
  return {
    schema: {
      type: 'object',
      additionalProperties: false,
      properties,
      ...(required.length > 0 && { required }),
    },
    targets,
    bodyRequired: requiredParts.has('body'),
    hasBody: 'body' in parts,
    dryRun,
    idempotencyKey,
    ...(mediaTypes && { file: { mediaTypes, filename } }),
  }
}

/** Whether a path or query argument holds U+0000, alone or in a list. */
const holdsNul = (value: unknown): boolean =>
  Array.isArray(value) ? value.some(holdsNul) : typeof value === 'string' && value.includes('\0')

/** A query value as HTTP would carry it: a string, or a list of strings. */
function queryValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(queryValue)
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return value
}

/** The parts of an operation's input from a tool call's arguments. */
export interface ToolInput {
  readonly params: Record<string, string>
  readonly query: Record<string, unknown>
  readonly body?: unknown
  readonly dryRun: boolean
  readonly idempotencyKey?: string
  /** The file of a tool whose operation takes one, checked to be base64, not yet decoded. */
  readonly file?: ToolFile
  /** The name the file was given (`filename`, when not a query parameter). */
  readonly filename?: string
}

/**
 * Splits a tool call's arguments into the operation's input. An argument the tool does not
 * take, or a malformed `dry_run`, `idempotency_key` or path parameter, fails validation as
 * the REST API would fail it (422, one error a field), and so does a path or query argument
 * longer than REST's URL could carry; everything else is the operation's own to check,
 * exactly as over HTTP.
 */
export function toolInput(args: ToolArguments, given: Record<string, unknown>): ToolInput {
  const errors: FieldError[] = []
  const params: Record<string, string> = {}
  const query: Record<string, unknown> = {}
  let body: Record<string, unknown> | undefined
  let whole: unknown
  let dryRun = false
  let idempotencyKey: string | undefined
  let filename: string | undefined
  const { file: takesFile } = args
  for (const [name, value] of Object.entries(given)) {
    if (takesFile && (name === 'content_base64' || name === 'media_type')) continue
    if (name === 'filename' && takesFile?.filename) {
      if (typeof value !== 'string')
        errors.push({ field: name, code: 'invalid_type', message: 'filename must be a string' })
      else if (tooLongForUrl(value)) errors.push(urlArgumentTooLong(name))
      else filename = value
      continue
    }
    if (name === 'dry_run' && args.dryRun) {
      if (typeof value === 'boolean') dryRun = value
      else errors.push({ field: name, code: 'invalid_type', message: 'dry_run must be a boolean' })
      continue
    }
    if (name === 'idempotency_key' && args.idempotencyKey) {
      if (typeof value === 'string' && value.length > 0 && value.length <= 255)
        idempotencyKey = value
      else
        errors.push({
          field: name,
          code: 'invalid_value',
          message: 'idempotency_key must be a string of 1 to 255 characters',
        })
      continue
    }
    const target = args.targets.get(name)
    if (!target) {
      errors.push({
        field: name,
        code: 'unknown_parameter',
        message: `${name} is not an argument of this tool`,
      })
      continue
    }
    if (target.part !== 'body' && tooLongForUrl(value)) {
      // As REST, whose URL holds no longer one.
      errors.push(urlArgumentTooLong(name))
      continue
    }
    if (target.part !== 'body' && holdsNul(value)) {
      // As the REST API refuses %00 in a URL: no record holds U+0000, and PostgreSQL cannot
      // even compare with it.
      errors.push({ field: name, code: 'invalid_value', message: `${name} may not contain U+0000` })
      continue
    }
    if (target.member === undefined) whole = value
    else if (target.part === 'params') {
      if (typeof value === 'string' || typeof value === 'number')
        params[target.member] = String(value)
      else errors.push({ field: name, code: 'invalid_type', message: `${name} must be a string` })
    } else if (target.part === 'query')
      query[target.member] =
        target.commaList && Array.isArray(value) ? value.map(String).join(',') : queryValue(value)
    else {
      body ??= {}
      body[target.member] = value
    }
  }
  for (const name of (args.schema.required as string[] | undefined) ?? [])
    if (!(name in given) && args.targets.get(name)?.part === 'params')
      errors.push({ field: name, code: 'required', message: `${name} is required` })
  const file = takesFile ? readToolFile(given.content_base64, given.media_type, errors) : undefined
  if (errors.length > 0) throw validationFailed(errors)
  if (whole !== undefined) body = whole as Record<string, unknown>
  else if (body === undefined && args.bodyRequired) body = {}
  return {
    params,
    query,
    ...(body !== undefined && { body }),
    dryRun,
    idempotencyKey,
    ...(file && { file }),
    ...(filename !== undefined && { filename }),
  }
}
