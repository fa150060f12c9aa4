import type { AppDeps } from '../../app-deps.js'
import { etagOf } from '../conventions.js'
import { ProblemError } from '../problem.js'
import { notFound } from './access.js'
import type { Row, StoredRow } from './fields.js'
import { withIdempotency } from './idempotency.js'
import { projected } from './list-params.js'
import { filledPath, type OperationInput, type OperationResult } from './operation.js'
import { pathOf, type ResourceContext, type ResourceDefinition, viewOf } from './resource.js'
import { byName } from './resource-db.js'
import { createResourceStore, type ResourceStore, stored, visibilityOf } from './store.js'
import { type KeptView, keptEtag, tracked, ViewMemo } from './view-memo.js'
import { parseWrite } from './write-input.js'

/** Characters of rows and answers each resource keeps for {@link ViewMemo} (at most some 0.5 MB). */
const VIEW_MEMO_BUDGET = 256_000

/** A unique index refused a write that raced past the check before it. */
function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE'
}

/** Thrown inside a dry run's transaction to roll it back; carries what would have been. */
class DryRunRollback {
  readonly result: OperationResult
  constructor(result: OperationResult) {
    this.result = result
  }
}

/** What every operation of one resource shares, its dependencies bound. */
export type ResourceRuntime = ReturnType<typeof resourceRuntime>

/**
 * The loading, checking and answering one declared resource's operations share: a record
 * as the caller may see it, its parent, the singleton's row, uniqueness, transactions and
 * the answer with its ETag.
 */
export function resourceRuntime(resource: ResourceDefinition, deps: AppDeps) {
  const db = byName(deps.database.db)
  const store = createResourceStore(db, resource)
  const base = pathOf(resource)
  const { issuer } = deps.config
  const parent = resource.parent?.resource()
  const parentStore = parent && createResourceStore(db, parent)

  /** The rows with the resource's derived values loaded (one batch for a page). */
  async function enriched<T extends Row | undefined>(rows: T[], full: boolean): Promise<T[]> {
    const present = rows.filter((row): row is NonNullable<T> => row !== undefined)
    if (resource.enrich && present.length > 0)
      await resource.enrich(db, present, full, deps.clock.now())
    return rows
  }
  const findFull = async (id: string) => (await enriched([await store.find(id)], true))[0]

  /** The record named by the input (or the singleton), as the caller may see it; 404 otherwise. */
  async function load(input: OperationInput, full: boolean): Promise<StoredRow> {
    const row = resource.singleton
      ? await singletonRow()
      : full && input.prefetched !== undefined
        ? stored(input.prefetched ?? undefined)
        : await store.findByKey(
            input.params.id ?? '',
            full ? undefined : visibilityOf(resource, 'get', deps.clock.now()),
          )
    if (!row) throw notFound(resource)
    await enriched([row], full)
    return row
  }

  /** The parent named in a nested path, as the caller may see it; 404 otherwise. */
  async function loadParent(input: OperationInput, full: boolean): Promise<StoredRow | undefined> {
    if (!parent || !parentStore || !resource.parent) return undefined
    const key = input.params[resource.parent.column]
    if (key === undefined) return undefined
    const row = await parentStore.findByKey(
      key,
      full || !resource.public?.withParent
        ? undefined
        : visibilityOf(parent, 'get', deps.clock.now()),
    )
    if (!row) throw notFound(parent)
    return row
  }

  /** The singleton's row, made from the field defaults the first time it is read. */
  async function singletonRow(): Promise<StoredRow | undefined> {
    const id = resource.singleton!
    const row = await store.find(id)
    if (row) return row
    const now = deps.clock.now()
    const values = parseWrite(resource, {}, 'create')
    await db
      .insertInto(resource.table)
      .values({ ...values, id, created_at: now, updated_at: now })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute()
    return store.find(id)
  }

  /** The ETag of a record's full view, which If-Match is compared with. */
  const etagOfRow = (row: Row) => etagOf(viewOf(resource, row, true, deps))

  const views = new ViewMemo(VIEW_MEMO_BUDGET)

  /** A record's JSON: kept from an earlier answer while its row is the same. */
  function serialised(row: Row, full: boolean, fields?: ReadonlySet<string>): KeptView {
    const key = `${full ? 'full' : 'public'} ${fields ? [...fields].join(',') : ''} ${row.id}`
    return views.answer(key, row, () => {
      const seen = tracked(deps)
      const json = JSON.stringify(projected(viewOf(resource, row, full, seen.deps), fields))
      return { json, keep: !seen.readOther() }
    })
  }

  /**
   * One record as the answer (only the members `fields` selects, when given): serialised
   * once, for the ETag and the body alike, so that each projection has its own ETag.
   */
  function answer(
    status: number,
    row: Row,
    full: boolean,
    fields?: ReadonlySet<string>,
  ): OperationResult {
    const view = serialised(row, full, fields)
    return {
      status,
      json: view.json,
      etag: keptEtag(view),
      headers: { 'cache-control': 'no-store', 'data-visibility': full ? 'full' : 'public' },
    }
  }

  async function checkUnique(within: ResourceStore, values: Row, exceptId?: string): Promise<void> {
    for (const [name, field] of Object.entries(resource.fields)) {
      if (!field.options.unique || values[name] === undefined || values[name] === null) continue
      if (await within.taken(name, values[name], exceptId))
        throw new ProblemError(422, {
          code: 'validation_failed',
          title: 'Unprocessable Content',
          detail: `another ${resource.object} already has this ${name}`,
          errors: [{ field: name, code: 'taken', message: `${name} is already taken` }],
        })
    }
  }

  /**
   * Runs a write and its hooks in one transaction: the record's row and what the hooks keep
   * beside it (child rows, counters) are saved together or not at all.
   */
  function atomically<T>(
    context: ResourceContext,
    fn: (tx: ResourceContext, txStore: ResourceStore) => Promise<T>,
  ): Promise<T> {
    return db
      .transaction()
      .execute((trx) => fn({ ...context, db: trx }, createResourceStore(trx, resource)))
  }

  /**
   * A dry run: the same write and hooks in one transaction, then `preview` reads inside it
   * what would have been, and the transaction is rolled back. Nothing is kept.
   */
  async function rehearse<T>(
    context: ResourceContext,
    fn: (tx: ResourceContext, txStore: ResourceStore) => Promise<T>,
    preview: (tx: ResourceContext, txStore: ResourceStore, value: T) => Promise<OperationResult>,
  ): Promise<OperationResult> {
    try {
      await db.transaction().execute(async (trx) => {
        const tx: ResourceContext = { ...context, db: trx, dryRun: true }
        const txStore = createResourceStore(trx, resource)
        throw new DryRunRollback(await preview(tx, txStore, await fn(tx, txStore)))
      })
    } catch (error) {
      if (error instanceof DryRunRollback) return error.result
      throw error
    }
    throw new Error('a dry run ended without rolling back')
  }

  /** A dry run's answer: the record `id` as it is inside the transaction, full view. */
  async function previewOf(
    status: number,
    tx: ResourceContext,
    txStore: ResourceStore,
    id: string,
  ): Promise<OperationResult> {
    const row = await txStore.find(id)
    if (!row) throw notFound(resource)
    if (resource.enrich) await resource.enrich(tx.db, [row], true, deps.clock.now())
    return dryRunAnswer(status, row)
  }

  /** What a dry run answers: the record's full view, marked as not written. */
  function dryRunAnswer(status: number, row: Row): OperationResult {
    return {
      status,
      body: viewOf(resource, row, true, deps),
      headers: { 'cache-control': 'no-store', 'data-visibility': 'full', 'dry-run': 'true' },
    }
  }

  /** A write that a unique index refused after the check (a race) answers 409. */
  async function write(fn: () => Promise<void>): Promise<void> {
    try {
      await fn()
    } catch (error) {
      if (!isUniqueViolation(error)) throw error
      throw new ProblemError(409, {
        code: 'conflict',
        title: 'Conflict',
        detail: `another ${resource.object} was just saved with the same unique value; retry`,
      })
    }
  }

  /** Runs a POST under its Idempotency-Key and answers with what it (first) produced. */
  async function idempotentPost(
    input: OperationInput,
    path: string,
    context: ResourceContext,
    run: () => Promise<{ status: number; id: string }>,
  ): Promise<OperationResult> {
    const stored = await withIdempotency(
      deps.database.db,
      {
        key: input.idempotencyKey,
        scope: `${context.caller.user.id} ${context.caller.clientId} ${filledPath(path, input.params)}`,
        body: input.body,
        now: context.now,
      },
      async () => {
        const { status, id } = await run()
        const row = await findFull(id)
        if (!row) throw notFound(resource)
        return {
          status,
          body: viewOf(resource, row, true, deps),
          ...(status === 201 && { location: `${issuer}${base}/${id}` }),
        }
      },
    )
    return {
      status: stored.status,
      body: stored.body,
      etag: etagOf(stored.body),
      ...(stored.location !== undefined && { location: stored.location }),
      headers: {
        'cache-control': 'no-store',
        'data-visibility': 'full',
        ...(stored.replayed && { 'idempotent-replayed': 'true' }),
      },
    }
  }

  return {
    db,
    store,
    parent,
    enriched,
    findFull,
    load,
    loadParent,
    etagOfRow,
    serialised,
    answer,
    checkUnique,
    atomically,
    rehearse,
    previewOf,
    dryRunAnswer,
    write,
    idempotentPost,
  }
}
