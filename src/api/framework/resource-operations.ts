import type { AppDeps } from '../../app-deps.js'
import type { JsonSchema } from './fields.js'
import { inputSchemaOf } from './input-schema.js'
import { type OperationDoc, resourceOperationDocs, writeSchema } from './openapi.js'
import {
  type ApiOperation,
  EFFECT_OF_METHOD,
  type OperationInput,
  type OperationResult,
  type OperationSpec,
} from './operation.js'
import type { ResourceDefinition } from './resource.js'
import { getRecord, listRecords } from './resource-reads.js'
import { resourceRuntime } from './resource-runtime.js'
import { createRecord, deleteRecord, runAction, updateRecord } from './resource-writes.js'
import { membersSchema } from './structures.js'

/** The JSON body an operation of a resource takes, from the same declaration. */
function bodyOf(resource: ResourceDefinition, doc: OperationDoc): JsonSchema | undefined {
  if (doc.name === 'create') return writeSchema(resource, 'create')
  if (doc.name === 'update') return writeSchema(resource, 'update')
  const action = resource.actions?.find((a) => a.name === doc.name)
  return action?.input && membersSchema(action.input)
}

/**
 * What each operation of one declared resource is, before it is bound to the application:
 * its name, route, scope, effect, input schema and OpenAPI entry, each only if declared, under
 * the same conventions (list, and list under its parent; create, get, update, delete, the
 * actions). The OpenAPI document is generated from these (src/api/operations.ts).
 */
export function resourceOperationSpecs(resource: ResourceDefinition): OperationSpec[] {
  const { read, write } = resource.scopes
  return resourceOperationDocs(resource).map((doc) => {
    const { openapi, method } = doc
    const effect = EFFECT_OF_METHOD[method]
    const scope = effect === 'read' ? read : write
    const body = bodyOf(resource, doc)
    const requestBody = openapi.requestBody as { required?: boolean } | undefined
    return {
      name: `${resource.collection}.${doc.name}`,
      method,
      path: doc.path,
      summary: String(openapi.summary),
      ...(scope !== undefined && { scope }),
      ...(effect === 'read' && resource.public && { public: true }),
      effect,
      ...(effect !== 'read' && { dryRun: true, roles: resource.writeRoles }),
      inputSchema: inputSchemaOf(
        (openapi.parameters as unknown[] | undefined) ?? [],
        body && { schema: body, required: requestBody?.required === true },
      ),
      openapi,
    }
  })
}

/**
 * Every operation of one declared resource, bound to the application: each spec with the
 * handler of its kind (a write records its changes under the operation's name).
 */
export function resourceOperations(resource: ResourceDefinition, deps: AppDeps): ApiOperation[] {
  const rt = resourceRuntime(resource, deps)
  const handlerOf = (
    spec: OperationSpec,
    kind: string,
  ): ((input: OperationInput) => Promise<OperationResult>) => {
    if (kind === 'list' || kind.startsWith('list_of_')) return listRecords(resource, deps, rt)
    if (kind === 'create') return createRecord(resource, deps, rt, spec.path, spec.name)
    if (kind === 'get') return getRecord(resource, deps, rt)
    if (kind === 'update') return updateRecord(resource, deps, rt, spec.name)
    if (kind === 'delete') return deleteRecord(resource, deps, rt, spec.name)
    const action = resource.actions?.find((a) => a.name === kind)
    if (!action) throw new Error(`${spec.name}: no handler`)
    return runAction(resource, deps, rt, action, spec.path, spec.name)
  }
  return resourceOperationSpecs(resource).map((spec) => {
    const kind = spec.name.slice(resource.collection.length + 1)
    // A GET of one record reads its row with the token (load, in resource-runtime.ts).
    const prefetch: ApiOperation['prefetch'] =
      kind === 'get' && !resource.singleton
        ? (params) => rt.store.findByKeyStatement(params.id ?? '')
        : undefined
    return { ...spec, run: handlerOf(spec, kind), ...(prefetch && { prefetch }) }
  })
}
