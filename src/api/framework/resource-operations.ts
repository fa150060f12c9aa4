import type { AppDeps } from '../../app-deps.js'
import type { JsonSchema } from './fields.js'
import { inputSchemaOf } from './input-schema.js'
import { resourcePaths, writeSchema } from './openapi.js'
import {
  type ApiOperation,
  EFFECT_OF_METHOD,
  type HttpMethod,
  type OperationInput,
  type OperationResult,
  openapiPath,
} from './operation.js'
import { pathOf, type ResourceDefinition } from './resource.js'
import { getRecord, listRecords } from './resource-reads.js'
import { resourceRuntime } from './resource-runtime.js'
import { createRecord, deleteRecord, runAction, updateRecord } from './resource-writes.js'
import { membersSchema } from './structures.js'

/**
 * Every operation of one declared resource, each only if declared, under the same
 * conventions: list (and list under its parent), create, get, update, delete and the
 * actions. Their OpenAPI entries are the ones `resourcePaths` documents the resource with.
 */
export function resourceOperations(resource: ResourceDefinition, deps: AppDeps): ApiOperation[] {
  const rt = resourceRuntime(resource, deps)
  const documented = resourcePaths(resource)
  const base = pathOf(resource)
  const item = resource.singleton ? base : `${base}/:id`
  const has = (op: ResourceDefinition['operations'][number]) => resource.operations.includes(op)
  const { parent } = resource
  /** Where a parented resource is listed and created: under its parent. */
  const nested =
    rt.parent &&
    parent &&
    `${pathOf(rt.parent)}/:${parent.column}/${parent.segment ?? resource.collection}`
  const { read, write } = resource.scopes

  const operations: ApiOperation[] = []
  function add(
    name: string,
    method: HttpMethod,
    path: string,
    /** The handler, given the operation's name (a write records its changes under it). */
    run: (operation: string) => (input: OperationInput) => Promise<OperationResult>,
    body?: JsonSchema,
    prefetch?: ApiOperation['prefetch'],
  ): void {
    const openapi = documented[openapiPath(path)]?.[method.toLowerCase()] as
      | Record<string, unknown>
      | undefined
    if (!openapi) throw new Error(`${resource.collection}: ${method} ${path} is not documented`)
    const effect = EFFECT_OF_METHOD[method]
    const scope = effect === 'read' ? read : write
    const requestBody = openapi.requestBody as { required?: boolean } | undefined
    const operation = `${resource.collection}.${name}`
    operations.push({
      name: operation,
      method,
      path,
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
      run: run(operation),
      ...(prefetch && { prefetch }),
    })
  }

  if (has('list')) {
    const list = () => listRecords(resource, deps, rt)
    add('list', 'GET', base, list)
    if (nested && rt.parent) add(`list_of_${rt.parent.object}`, 'GET', nested, list)
  }
  if (has('create')) {
    const path = nested || base
    add(
      'create',
      'POST',
      path,
      (operation) => createRecord(resource, deps, rt, path, operation),
      writeSchema(resource, 'create'),
    )
  }
  if (has('get'))
    add(
      'get',
      'GET',
      item,
      () => getRecord(resource, deps, rt),
      undefined,
      // The record, as a caller with the read scope reads it (load, in resource-runtime.ts).
      resource.singleton ? undefined : (params) => rt.store.findByKeyStatement(params.id ?? ''),
    )
  if (has('update'))
    add(
      'update',
      'PATCH',
      item,
      (operation) => updateRecord(resource, deps, rt, operation),
      writeSchema(resource, 'update'),
    )
  if (has('delete'))
    add('delete', 'DELETE', item, (operation) => deleteRecord(resource, deps, rt, operation))
  for (const action of resource.actions ?? []) {
    const path = `${item}/${action.name}`
    add(
      action.name,
      'POST',
      path,
      (operation) => runAction(resource, deps, rt, action, path, operation),
      action.input && membersSchema(action.input),
    )
  }
  return operations
}
