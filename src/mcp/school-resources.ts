import type { ApiOperation } from '../api/framework/operation.js'
import { toolNameOf } from '../api/framework/operation.js'
import { pathOf, type ResourceDefinition } from '../api/framework/resource.js'
import { RESOURCES } from '../api/registry.js'
import { describeScope } from '../oauth/authorize/scope-labels.js'
import { ROLES, roleAllows } from '../oauth/roles.js'
import { ALL_SCOPES } from '../oauth/scopes.js'
import { DATA_NOT_INSTRUCTIONS } from './tools.js'

/** The MCP resources Portico offers: documents about the school's API, not its records. */
export const SCHOOL_RESOURCES = [
  {
    uri: 'portico://school/data-model',
    name: 'data-model',
    title: 'The school’s data model',
    description:
      'Every kind of record the tools read and write: its fields (type, whether required, read-only or public), the scopes that read and write it, and how the kinds relate',
    mimeType: 'application/json',
  },
  {
    uri: 'portico://school/scopes',
    name: 'scopes',
    title: 'What each scope allows',
    description:
      'Every OAuth scope: what it lets an agent do, which roles may grant it, and which tools need it',
    mimeType: 'application/json',
  },
] as const

/** `course_id` → the resource whose object is `course`, when there is one. */
const OBJECTS = new Map(RESOURCES.map((r) => [r.object, r]))

function relationsOf(resource: ResourceDefinition): Array<Record<string, string>> {
  const relations: Array<Record<string, string>> = []
  const parent = resource.parent?.resource()
  if (parent && resource.parent)
    relations.push({ field: resource.parent.column, kind: 'belongs_to', target: parent.collection })
  for (const name of Object.keys(resource.fields)) {
    const match = /^(?:.*_)?([a-z]+)_ids?$/.exec(name)
    const exact = /^(.+)_(ids?)$/.exec(name)
    const target = (exact && OBJECTS.get(exact[1] ?? '')) ?? (match && OBJECTS.get(match[1] ?? ''))
    if (!target || (parent && name === resource.parent?.column)) continue
    relations.push({
      field: name,
      kind: name.endsWith('_ids') ? 'references_many' : 'references',
      target: target.collection,
    })
  }
  return relations
}

/** The data model, generated from the resource declarations. */
export function dataModel(): Record<string, unknown> {
  return {
    note: DATA_NOT_INSTRUCTIONS,
    resources: RESOURCES.map((resource) => ({
      collection: resource.collection,
      object: resource.object,
      path: pathOf(resource),
      ...(resource.singleton ? { singleton: true } : { id_prefix: `${resource.idPrefix}_` }),
      scopes: resource.scopes,
      public_projection: resource.public !== undefined,
      write_roles: resource.writeRoles,
      operations: [...resource.operations, ...(resource.actions ?? []).map((a) => a.name)],
      fields: Object.fromEntries(
        Object.entries(resource.fields).map(([name, field]) => {
          const { options } = field
          return [
            name,
            {
              schema: field.schema(),
              ...(options.required && { required: true }),
              ...(options.readOnly && { read_only: true }),
              ...(options.immutable && { immutable: true }),
              ...(options.public && { public: true }),
              ...(options.unique && { unique: true }),
              ...(options.filter && { filter: true }),
              ...(options.sortable && { sortable: true }),
            },
          ]
        }),
      ),
      relations: relationsOf(resource),
    })),
  }
}

/** What each scope allows, who may grant it and which tools need it. */
export function scopeTable(operations: readonly ApiOperation[]): Record<string, unknown> {
  return {
    scopes: ALL_SCOPES.map((scope) => ({
      scope,
      allows: describeScope(scope).label,
      roles: ROLES.filter((role) => roleAllows(role, scope)),
      tools: operations.filter((o) => o.scope === scope).map(toolNameOf),
    })),
  }
}
