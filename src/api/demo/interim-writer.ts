// INTERIM: stands in for the framework's operations until they land (branch ops); replaced
// by resourceOperations(resource, deps) on rebase.
import type { AppDeps } from '../../app-deps.js'
import type { Caller } from '../caller.js'
import { type FieldError, validationFailed } from '../conventions.js'
import type { Row } from '../framework/fields.js'
import type { ResourceContext } from '../framework/resource.js'
import { createResourceStore, type ResourceDb } from '../framework/store.js'
import { checkMembers } from '../framework/structures.js'
import { parseWrite } from '../framework/write-input.js'
import { ProblemError } from '../problem.js'
import type { DemoWriter } from './load-catalogue.js'

export function interimWriter(
  deps: AppDeps,
  caller: Extract<Caller, { kind: 'token' }>,
): DemoWriter {
  const db = deps.database.db as unknown as ResourceDb
  const context = (): ResourceContext => ({ deps, db, caller, now: deps.clock.now() })
  const loud = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn()
    } catch (error) {
      if (error instanceof ProblemError)
        throw new Error(`${what}: ${error.status} ${JSON.stringify(error.fields)}`)
      throw error
    }
  }
  return {
    create: (resource, body, parentId) =>
      loud(`create ${resource.object}`, async () => {
        const values = parseWrite(resource, body as Record<string, unknown>, 'create')
        const ctx = context()
        const id = deps.random.id(resource.idPrefix)
        Object.assign(values, { id, created_at: ctx.now, updated_at: ctx.now })
        if (parentId && resource.parent) values[resource.parent.column] = parentId
        await resource.beforeCreate?.(ctx, values)
        if (resource.ownership.kind === 'person') resource.ownership.claim?.(ctx, values)
        await resource.beforeWrite?.(ctx, values)
        await createResourceStore(db, resource).insert(values)
        await resource.afterWrite?.(ctx, id, values)
        return id
      }),
    update: (resource, id, body) =>
      loud(`update ${resource.object} ${id}`, async () => {
        const store = createResourceStore(db, resource)
        if (resource.singleton && !(await store.find(id))) {
          const now = deps.clock.now()
          await store.insert({
            ...parseWrite(resource, {}, 'create'),
            id,
            created_at: now,
            updated_at: now,
          })
        }
        const row = (await store.find(id)) as Row
        const values = parseWrite(resource, body as Record<string, unknown>, 'update', row)
        const ctx = context()
        await resource.beforeWrite?.(ctx, values, row)
        await store.update(id, { ...values, updated_at: ctx.now })
        await resource.afterWrite?.(ctx, id, values, row)
      }),
    action: (resource, id, name, input) =>
      loud(`${name} ${resource.object} ${id}`, async () => {
        const row = (await createResourceStore(db, resource).find(id)) as Row
        const ctx = context()
        if (resource.enrich) await resource.enrich(db, [row], true, ctx.now)
        const action = resource.actions?.find((a) => a.name === name)
        if (!action) throw new Error(`no action ${name}`)
        const errors: FieldError[] = []
        const parsed = checkMembers(action.input ?? {}, input ?? {}, 'body', errors) ?? {}
        if (errors.length > 0) throw validationFailed(errors)
        await action.run(ctx, row, parsed)
      }),
  }
}
