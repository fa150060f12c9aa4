import type { AppDeps } from '../../app-deps.js'
import { changesOf } from '../activity/changes.js'
import { recordChange } from '../activity/record.js'
import {
  checkIfMatch,
  type FieldError,
  requireJsonContent,
  requireObject,
  validationFailed,
} from '../conventions.js'
import { requireOwner, writerOf } from './access.js'
import type { OperationInput, OperationResult } from './operation.js'
import type { Action, ResourceContext, ResourceDefinition } from './resource.js'
import type { ResourceRuntime } from './resource-runtime.js'
import type { ResourceStore } from './store.js'
import { checkMembers } from './structures.js'
import { parseWrite } from './write-input.js'

/**
 * Creates a record (under its parent, when nested): 201 with Location, or 200 with the record
 * the create would have duplicated; under an Idempotency-Key the first answer is replayed.
 */
export function createRecord(
  resource: ResourceDefinition,
  deps: AppDeps,
  rt: ResourceRuntime,
  path: string,
  operation: string,
) {
  return async (input: OperationInput): Promise<OperationResult> => {
    const context = writerOf(input.caller, resource, deps)
    requireJsonContent(input.contentType)
    const body = requireObject(input.body)
    const owner = await rt.loadParent(input, true)
    const make = () => {
      const values = parseWrite(resource, body, 'create')
      const id = deps.random.id(resource.idPrefix)
      Object.assign(values, { id, created_at: context.now, updated_at: context.now })
      if (owner && resource.parent) values[resource.parent.column] = owner.id
      return async (tx: ResourceContext, txStore: ResourceStore) => {
        const existing = await resource.existing?.(tx, values)
        if (existing) {
          const before = await txStore.find(existing)
          if (before && resource.reuse) {
            await resource.reuse(tx, before, values)
            const changes = changesOf(resource.fields, before, await txStore.find(existing))
            if (changes.length > 0)
              await recordChange(tx, {
                operation,
                recordType: resource.object,
                recordId: existing,
                changes,
              })
          }
          return { status: 200, id: existing }
        }
        await resource.beforeCreate?.(tx, values)
        if (resource.ownership.kind === 'person') resource.ownership.claim?.(tx, values)
        await requireOwner(resource, tx, values)
        await resource.beforeWrite?.(tx, values)
        await rt.checkUnique(txStore, values)
        await rt.write(() => txStore.insert(values))
        await resource.afterWrite?.(tx, id, values)
        await recordChange(tx, {
          operation,
          recordType: resource.object,
          recordId: id,
          changes: changesOf(resource.fields, undefined, await txStore.find(id), values),
        })
        return { status: 201, id }
      }
    }
    if (input.dryRun)
      return rt.rehearse(context, make(), (tx, txStore, { status, id }) =>
        rt.previewOf(status, tx, txStore, id),
      )
    return rt.idempotentPost(input, path, context, () => rt.atomically(context, make()))
  }
}

/** A JSON merge PATCH of a record, under If-Match when given. */
export function updateRecord(
  resource: ResourceDefinition,
  deps: AppDeps,
  rt: ResourceRuntime,
  operation: string,
) {
  return async (input: OperationInput): Promise<OperationResult> => {
    const context = writerOf(input.caller, resource, deps)
    requireJsonContent(input.contentType)
    const row = await rt.load(input, true)
    checkIfMatch(input.ifMatch, rt.etagOfRow(row))
    const values = parseWrite(resource, requireObject(input.body), 'update', row)
    const id = row.id
    const change = async (tx: ResourceContext, txStore: ResourceStore) => {
      // The stored row as the change finds it (what the activity record compares).
      const before = await txStore.find(id)
      // The record must be the caller's before the change, and still be theirs after it.
      await requireOwner(resource, tx, row)
      await requireOwner(resource, tx, { ...row, ...values })
      await resource.beforeWrite?.(tx, values, row)
      await rt.checkUnique(txStore, values, id)
      await rt.write(() => txStore.update(id, { ...values, updated_at: context.now }))
      await resource.afterWrite?.(tx, id, values, row)
      const changes = changesOf(resource.fields, before, await txStore.find(id), values)
      // A PATCH that changed nothing is no change to record.
      if (changes.length > 0)
        await recordChange(tx, { operation, recordType: resource.object, recordId: id, changes })
    }
    if (input.dryRun)
      return rt.rehearse(context, change, (tx, txStore) => rt.previewOf(200, tx, txStore, id))
    await rt.atomically(context, change)
    return rt.answer(200, (await rt.findFull(id)) ?? row, true)
  }
}

/** Deletes a record (or carries out the declared removal), under If-Match when given: 204. */
export function deleteRecord(
  resource: ResourceDefinition,
  deps: AppDeps,
  rt: ResourceRuntime,
  operation: string,
) {
  return async (input: OperationInput): Promise<OperationResult> => {
    const context = writerOf(input.caller, resource, deps)
    const row = await rt.load(input, true)
    checkIfMatch(input.ifMatch, rt.etagOfRow(row))
    const remove = async (tx: ResourceContext, txStore: ResourceStore) => {
      const id = row.id
      const before = await txStore.find(id)
      await requireOwner(resource, tx, row)
      await resource.beforeDelete?.(tx, row)
      if (resource.remove) await resource.remove(tx, row)
      else await txStore.remove(row.id)
      await recordChange(tx, {
        operation,
        recordType: resource.object,
        recordId: id,
        changes: changesOf(resource.fields, before, await txStore.find(id)),
      })
    }
    // A dry run answers the record the delete would remove.
    if (input.dryRun) return rt.rehearse(context, remove, async () => rt.dryRunAnswer(200, row))
    await rt.atomically(context, remove)
    return { status: 204 }
  }
}

/** A declared action on a record: its optional JSON body checked against `action.input`. */
export function runAction(
  resource: ResourceDefinition,
  deps: AppDeps,
  rt: ResourceRuntime,
  action: Action,
  path: string,
  operation: string,
) {
  return async (input: OperationInput): Promise<OperationResult> => {
    const context = writerOf(input.caller, resource, deps)
    let members: Record<string, unknown> = {}
    if (input.body !== undefined && input.body !== null) {
      requireJsonContent(input.contentType)
      const errors: FieldError[] = []
      members = checkMembers(action.input ?? {}, requireObject(input.body), 'body', errors) ?? {}
      if (errors.length > 0)
        throw validationFailed(errors.map((e) => ({ ...e, field: e.field.replace(/^body\./, '') })))
    }
    const row = await rt.load(input, true)
    checkIfMatch(input.ifMatch, rt.etagOfRow(row))
    await requireOwner(resource, context, row)
    const status = action.creates ? 201 : 200
    if (input.dryRun)
      return rt.rehearse(
        context,
        (tx) => action.run(tx, row, members),
        (tx, txStore, id) => rt.previewOf(status, tx, txStore, id),
      )
    // The action and its record in one transaction.
    return rt.idempotentPost(input, path, context, () =>
      rt.atomically(context, async (tx, txStore) => {
        const before = await txStore.find(row.id)
        const id = await action.run(tx, row, members)
        // A new record (a duplicate) is recorded as made; the same one by what changed.
        const made = id !== row.id
        const changes = changesOf(
          resource.fields,
          made ? undefined : before,
          await txStore.find(id),
        )
        if (made || changes.length > 0)
          await recordChange(tx, { operation, recordType: resource.object, recordId: id, changes })
        return { status, id }
      }),
    )
  }
}
