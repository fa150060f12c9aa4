import type { AppDeps } from '../../app-deps.js'
import type { Caller } from '../caller.js'
import type { ApiOperation, OperationResult } from '../framework/operation.js'
import type { ResourceDefinition } from '../framework/resource.js'
import { apiOperations } from '../operations.js'
import { ProblemError } from '../problem.js'
import type { JsonObject } from './catalogue/types.js'
import type { DemoWriter } from './load-catalogue.js'

/**
 * The demo's writes as the framework's own operations (create, update, actions), run for
 * `caller` with no HTTP in between. A refusal (any status from 400) throws, naming the
 * operation and the API's problem, so a demo record the API would refuse fails the load.
 */
export function operationsWriter(deps: AppDeps, caller: Caller): DemoWriter {
  // The catalogue's operations, bound once, as HTTP and MCP bind them.
  let bound: ReadonlyMap<string, ApiOperation> | undefined
  async function call(
    resource: ResourceDefinition,
    name: string,
    params: Record<string, string>,
    body: JsonObject | undefined,
  ): Promise<OperationResult> {
    bound ??= new Map(apiOperations(deps).map((op) => [op.name, op]))
    const operation = bound.get(`${resource.collection}.${name}`)
    if (!operation)
      throw new Error(`the demo calls ${resource.collection}.${name}, which is not served`)
    const what = `demo: ${operation.name} ${JSON.stringify(params)}`
    try {
      const result = await operation.run({
        caller,
        params,
        query: {},
        ...(body !== undefined && { body, contentType: 'application/json' }),
      })
      if (result.status >= 400) throw new Error(`${what}: ${result.status} ${result.json ?? ''}`)
      return result
    } catch (error) {
      if (error instanceof ProblemError)
        throw new Error(`${what}: ${error.status} ${JSON.stringify(error.fields)}`)
      throw error
    }
  }
  const idOf = (result: OperationResult): string => {
    const body = (result.json === undefined ? result.body : JSON.parse(result.json)) as {
      id?: unknown
    }
    return String(body.id)
  }
  return {
    async create(resource, body, parentId) {
      const column = resource.parent?.column
      const params: Record<string, string> = column && parentId ? { [column]: parentId } : {}
      return idOf(await call(resource, 'create', params, body))
    },
    async update(resource, id, body) {
      await call(resource, 'update', resource.singleton ? {} : { id }, body)
    },
    async action(resource, id, name, input) {
      await call(resource, name, { id }, input)
    },
  }
}
