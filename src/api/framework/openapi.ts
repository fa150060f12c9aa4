import type { JsonSchema } from './fields.js'
import {
  ALWAYS_PROJECTED,
  FIELDS_DESCRIPTION,
  fieldsSchema,
  filterableOf,
  filterOf,
  MAX_LIMIT,
  searchableOf,
  selectableOf,
  sortableOf,
} from './list-params.js'
import { IF_NONE_MATCH_PARAMETER, NOT_MODIFIED_RESPONSE } from './not-modified.js'
import type { HttpMethod } from './operation.js'
import { pageSchema } from './page-schema.js'
import { problemResponse as problem } from './problem-response.js'
import { pathOf, type ResourceDefinition } from './resource.js'
import { membersSchema } from './structures.js'

const pascal = (text: string) =>
  text
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('')

/**
 * The JSON Schema of a record as the full view returns it. Only `id` and `object` are
 * required: a read with `fields` answers the members it names and those two.
 */
function recordSchema(resource: ResourceDefinition): JsonSchema {
  const fieldSchemas = Object.entries(resource.fields).map(([name, field]) => {
    const schema = field.schema()
    return [
      name,
      field.options.public ? schema : { ...schema, description: withPrivateNote(schema) },
    ]
  })
  return {
    type: 'object',
    required: [...ALWAYS_PROJECTED],
    properties: {
      // A singleton's id is fixed (`school`); every other id carries the prefix.
      id: resource.singleton
        ? { const: resource.singleton }
        : { type: 'string', pattern: `^${resource.idPrefix}_` },
      object: { const: resource.object },
      ...Object.fromEntries(fieldSchemas),
      created_at: { type: 'string', format: 'date-time' },
      updated_at: { type: 'string', format: 'date-time' },
    },
  }
}

function withPrivateNote(schema: JsonSchema): string {
  const note = 'Only with the read scope (omitted from the public projection).'
  return typeof schema.description === 'string' ? `${schema.description} ${note}` : note
}

/** The request body of a create or a PATCH: the writable fields, nothing else. */
export function writeSchema(resource: ResourceDefinition, mode: 'create' | 'update'): JsonSchema {
  const writable = Object.entries(resource.fields).filter(([, f]) => !f.options.readOnly)
  const required =
    mode === 'create'
      ? writable.filter(([, f]) => f.options.required && f.options.default === undefined)
      : []
  return {
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(writable.map(([name, f]) => [name, f.schema()])),
    ...(required.length > 0 && { required: required.map(([name]) => name) }),
  }
}

/** The component schemas of resources: each record, and the bodies that create and update it. */
export function resourceSchemas(
  resources: readonly ResourceDefinition[],
): Record<string, JsonSchema> {
  return Object.fromEntries(
    resources.flatMap((resource) => {
      const name = pascal(resource.object)
      const writes: Array<[string, JsonSchema]> = []
      if (resource.operations.includes('update'))
        writes.push([`${name}Update`, writeSchema(resource, 'update')])
      if (resource.operations.includes('create'))
        writes.push([`${name}Create`, writeSchema(resource, 'create')])
      return [[name, recordSchema(resource)], ...writes]
    }),
  )
}

/** One operation of a resource as the OpenAPI document says it, before it is bound. */
export interface OperationDoc {
  /** The operation's name within its collection (`list`, `list_of_course`, `publish` …). */
  readonly name: string
  readonly method: HttpMethod
  /** Fastify-style (`/api/v1/courses/:id`). */
  readonly path: string
  readonly openapi: Record<string, unknown>
}

/**
 * Every operation of one resource with its OpenAPI entry, derived from the declaration, in
 * the order the document lists them (under the parent, the collection, the record, the
 * actions). The operations are made from these (resource-operations.ts), and the document
 * from the operations.
 */
export function resourceOperationDocs(resource: ResourceDefinition): OperationDoc[] {
  const base = pathOf(resource)
  const name = pascal(resource.object)
  const tags = [resource.collection]
  const ref = (suffix = '') => ({ $ref: `#/components/schemas/${name}${suffix}` })
  const record = ref()
  const { read, write } = resource.scopes
  const readSecurity = resource.public ? [{}, { oauth2: [read] }] : [{ oauth2: [read] }]
  const writeSecurity = [{ oauth2: write ? [write] : [] }]
  const json = (schema: JsonSchema) => ({ 'application/json': { schema } })
  const one = (description: string) => ({
    description,
    headers: { ETag: { schema: { type: 'string' } } },
    content: json(record),
  })
  const readErrors = {
    '401': problem('Invalid token (or none, where the resource has no public projection)'),
    '403': problem(`The token lacks ${read}`),
    '404': problem('No such record, or not public'),
    ...(resource.public && {
      '429': problem('Too many requests without a token from this address'),
    }),
  }
  const writeErrors = {
    '401': problem('No token, or an invalid one'),
    '403': problem(
      `The token lacks ${write} (insufficient_scope) or the role may not write (forbidden_role); or the call waits for a yes (approval_required, with approval_url: repeat the same request after the approval; approval_refused after a no)`,
    ),
    '404': problem('No such record'),
    '409': problem('Conflict: the record has dependants, or an Idempotency-Key is in flight'),
    '412': problem('If-Match does not match the current ETag'),
    '415': problem('The body is not application/json'),
    '422': problem('Validation failed (errors names each field), or idempotency_key_reused'),
  }
  const idParam = {
    name: 'id',
    in: 'path',
    required: true,
    schema: { type: 'string' },
    description: resource.slugField ? 'The id, or the slug' : 'The id',
  }
  const ifMatch = { name: 'If-Match', in: 'header', required: false, schema: { type: 'string' } }
  const idempotencyKey = {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    schema: { type: 'string', maxLength: 255 },
    description: 'Replays the first answer for the same key and body (24 h)',
  }
  const itemPath = resource.singleton ? base : `${base}/:id`
  const itemParams = resource.singleton ? [] : [idParam]
  const has = (op: ResourceDefinition['operations'][number]) => resource.operations.includes(op)
  const docs: OperationDoc[] = []
  const collection: Record<string, Record<string, unknown>> = {}
  const item: Record<string, Record<string, unknown>> = {}

  if (has('list'))
    collection.get = {
      operationId: `list${pascal(resource.collection)}`,
      summary: `List ${resource.collection.replaceAll('_', ' ')}`,
      tags,
      security: readSecurity,
      parameters: listParameters(resource),
      responses: {
        '200': {
          description: 'A page of records',
          content: json(pageSchema(record)),
        },
        '400': problem('An unknown filter, sort or fields member, or a malformed cursor'),
        ...readErrors,
      },
    }
  if (has('create'))
    collection.post = {
      operationId: `create${name}`,
      summary: `Create a ${resource.object.replaceAll('_', ' ')}`,
      tags,
      security: writeSecurity,
      parameters: [idempotencyKey],
      requestBody: { required: true, content: json(ref('Create')) },
      responses: {
        '201': { ...one('Created'), headers: { Location: { schema: { type: 'string' } } } },
        ...(resource.existing && { '200': one('It existed already: the existing record') }),
        '400': problem('Malformed body'),
        ...writeErrors,
      },
    }
  if (has('get'))
    item.get = {
      operationId: `get${name}`,
      summary: `Get a ${resource.object.replaceAll('_', ' ')}`,
      tags,
      security: readSecurity,
      parameters: [...itemParams, fieldsParameter(resource), IF_NONE_MATCH_PARAMETER],
      responses: {
        '200': one('The record (the public projection without the scope)'),
        '304': NOT_MODIFIED_RESPONSE,
        '400': problem('fields names an unknown member, or one the caller may not see'),
        ...readErrors,
      },
    }
  if (has('update'))
    item.patch = {
      operationId: `update${name}`,
      summary: `Update a ${resource.object.replaceAll('_', ' ')} (JSON merge; null clears)`,
      tags,
      security: writeSecurity,
      parameters: [...itemParams, ifMatch],
      requestBody: { required: true, content: json(ref('Update')) },
      responses: {
        '200': one('The updated record'),
        '400': problem('Malformed body'),
        ...writeErrors,
      },
    }
  if (has('delete'))
    item.delete = {
      operationId: `delete${name}`,
      summary: `Delete a ${resource.object.replaceAll('_', ' ')}`,
      tags,
      security: writeSecurity,
      parameters: [...itemParams, ifMatch],
      responses: { '204': { description: 'Deleted' }, ...writeErrors },
    }
  const parent = resource.parent
  if (parent) {
    // Listed everywhere, and under its parent; created only under its parent.
    const owner = parent.resource()
    const ownerParam = {
      name: parent.column,
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }
    const under = `${pathOf(owner)}/:${parent.column}/${parent.segment ?? resource.collection}`
    if (collection.get)
      docs.push({
        name: `list_of_${owner.object}`,
        method: 'GET',
        path: under,
        openapi: {
          ...collection.get,
          operationId: `list${pascal(resource.collection)}Of${pascal(owner.object)}`,
          parameters: [ownerParam, ...(collection.get.parameters as unknown[])],
        },
      })
    if (collection.post) {
      const post = collection.post
      docs.push({
        name: 'create',
        method: 'POST',
        path: under,
        openapi: { ...post, parameters: [ownerParam, ...(post.parameters as unknown[])] },
      })
      delete collection.post
    }
  }
  if (!resource.singleton) {
    if (collection.get)
      docs.push({ name: 'list', method: 'GET', path: base, openapi: collection.get })
    if (collection.post)
      docs.push({ name: 'create', method: 'POST', path: base, openapi: collection.post })
  }
  if (item.get) docs.push({ name: 'get', method: 'GET', path: itemPath, openapi: item.get })
  if (item.patch)
    docs.push({ name: 'update', method: 'PATCH', path: itemPath, openapi: item.patch })
  if (item.delete)
    docs.push({ name: 'delete', method: 'DELETE', path: itemPath, openapi: item.delete })
  for (const action of resource.actions ?? [])
    docs.push({
      name: action.name,
      method: 'POST',
      path: `${itemPath}/${action.name}`,
      openapi: {
        operationId: `${action.name.replace(/_(\w)/g, (_, c: string) => c.toUpperCase())}${name}`,
        summary: action.summary,
        tags,
        security: writeSecurity,
        parameters: [...itemParams, ifMatch, idempotencyKey],
        ...(action.input && {
          requestBody: { required: false, content: json(membersSchema(action.input)) },
        }),
        responses: {
          [action.creates ? '201' : '200']: one(action.creates ? 'The new record' : 'The record'),
          ...writeErrors,
        },
      },
    })
  return docs
}

/**
 * `fields`: the projection, a comma-separated list (OpenAPI's form style, not exploded).
 * The same declaration checks it (`selectableOf`) and documents it here.
 */
function fieldsParameter(resource: ResourceDefinition): Record<string, unknown> {
  return {
    name: 'fields',
    in: 'query',
    style: 'form',
    explode: false,
    schema: fieldsSchema(selectableOf(resource)),
    description: `${FIELDS_DESCRIPTION} Without the read scope, only the public ones.`,
  }
}

function listParameters(resource: ResourceDefinition): unknown[] {
  const sortable = sortableOf(resource)
  const params: unknown[] = [
    {
      name: 'limit',
      in: 'query',
      schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: 20 },
    },
    {
      name: 'cursor',
      in: 'query',
      schema: { type: 'string' },
      description: 'next_cursor of the previous page',
    },
    {
      name: 'sort',
      in: 'query',
      schema: { type: 'string' },
      description: `Comma-separated, - for descending: ${sortable.join(', ')}`,
    },
    fieldsParameter(resource),
  ]
  if (searchableOf(resource).length > 0)
    params.push({
      name: 'q',
      in: 'query',
      schema: { type: 'string' },
      description: `Case-insensitive search in ${searchableOf(resource).join(', ')}`,
    })
  for (const name of filterableOf(resource)) {
    const filter = filterOf(resource, name)
    if (!filter) continue
    const { field, declared } = filter
    const schema = field.schema()
    const { readOnly: _readOnly, description: _description, ...scalar } = schema
    params.push({
      name,
      in: 'query',
      schema: scalar,
      ...(declared?.description && { description: declared.description }),
    })
    if (field.filterKind === 'range')
      for (const op of ['gt', 'gte', 'lt', 'lte'])
        params.push({ name: `${name}[${op}]`, in: 'query', schema: scalar })
  }
  return params
}
