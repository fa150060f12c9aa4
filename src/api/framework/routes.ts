import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AppDeps } from '../../app-deps.js'
import {
  checkIfMatch,
  etagOf,
  etagOfJson,
  type FieldError,
  requireJsonContent,
  requireObject,
  validationFailed,
} from '../conventions.js'
import { ProblemError } from '../problem.js'
import { notFound, readsFull, requireOwner, writerOf } from './access.js'
import type { Row } from './fields.js'
import { withIdempotency } from './idempotency.js'
import { encodeCursor, parseListParams } from './list-params.js'
import {
  type Action,
  pathOf,
  type ResourceContext,
  type ResourceDefinition,
  viewOf,
} from './resource.js'
import { createResourceStore, type ResourceDb, type ResourceStore, visibilityOf } from './store.js'
import { checkMembers } from './structures.js'
import { parseWrite } from './write-input.js'

/** A unique index refused a write that raced past the check before it. */
function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE'
}

/**
 * Serves one declared resource: list, get, create, update, delete and its actions, each only
 * if declared, under the same conventions. Registered inside the /api/v1 plugin, whose hook
 * has already identified the caller.
 */
export function registerResource(
  api: FastifyInstance,
  deps: AppDeps,
  resource: ResourceDefinition,
): void {
  const db = deps.database.db as unknown as ResourceDb
  const store = createResourceStore(db, resource)
  const base = pathOf(resource)
  const { issuer } = deps.config
  const item = resource.singleton ? base : `${base}/:id`
  const has = (op: ResourceDefinition['operations'][number]) => resource.operations.includes(op)

  const readerOf = (request: FastifyRequest) => readsFull(request, resource, issuer)
  const writer = (request: FastifyRequest) => writerOf(request, resource, deps)
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

  async function load(request: FastifyRequest, full: boolean): Promise<Row> {
    const row = resource.singleton
      ? await singletonRow()
      : await store.findByKey(
          (request.params as { id: string }).id,
          full ? undefined : visibilityOf(resource, 'get', deps.clock.now()),
        )
    if (!row) throw notFound(resource)
    await enriched([row], full)
    return row
  }

  /** The parent named in a nested path, as the caller may see it; 404 otherwise. */
  async function loadParent(request: FastifyRequest, full: boolean): Promise<Row | undefined> {
    if (!parent || !parentStore || !resource.parent) return undefined
    const key = (request.params as Record<string, string | undefined>)[resource.parent.column]
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
  async function singletonRow(): Promise<Row | undefined> {
    const id = resource.singleton as string
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

  function send(reply: FastifyReply, status: number, row: Row, full: boolean) {
    // Serialised once, for the ETag and the body alike.
    const json = JSON.stringify(viewOf(resource, row, full, deps))
    return reply
      .code(status)
      .header('cache-control', 'no-store')
      .header('data-visibility', full ? 'full' : 'public')
      .header('etag', etagOfJson(json))
      .type('application/json; charset=utf-8')
      .send(json)
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
    request: FastifyRequest,
    reply: FastifyReply,
    context: ResourceContext,
    run: () => Promise<{ status: number; id: string }>,
  ) {
    const key = request.headers['idempotency-key']
    const answer = await withIdempotency(
      deps.database.db,
      {
        key: typeof key === 'string' ? key : undefined,
        scope: `${context.caller.user.id} ${context.caller.clientId} ${request.url}`,
        body: request.body,
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
    if (answer.location) reply.header('location', answer.location)
    if (answer.replayed) reply.header('idempotent-replayed', 'true')
    return reply
      .code(answer.status)
      .header('cache-control', 'no-store')
      .header('data-visibility', 'full')
      .header('etag', etagOf(answer.body))
      .send(answer.body)
  }

  /** Where a parented resource is listed and created: under its parent. */
  const nested =
    parent &&
    resource.parent &&
    `${pathOf(parent)}/:${resource.parent.column}/${resource.parent.segment ?? resource.collection}`

  async function list(request: FastifyRequest, reply: FastifyReply) {
    const full = readerOf(request)
    // What the caller cannot read, it cannot filter, sort or search by either.
    const params = parseListParams(
      resource,
      request.query as Record<string, unknown>,
      deps.clock.now(),
      full,
    )
    const owner = await loadParent(request, full)
    const filters =
      owner && resource.parent
        ? [...params.filters, { column: resource.parent.column, op: '=' as const, value: owner.id }]
        : params.filters
    // Under a parent the caller was allowed to see, only the record's own condition remains.
    const visible = full
      ? undefined
      : visibilityOf(resource, 'list', deps.clock.now(), owner === undefined)
    const query = {
      filters,
      sort: params.sort,
      limit: params.limit,
      ...(visible && { visible }),
      ...(params.after && { after: params.after }),
      ...(params.q !== undefined && {
        search: { columns: params.searchIn, text: params.q },
      }),
    }
    const [{ rows, hasMore }, total] = await Promise.all([store.list(query), store.count(query)])
    const last = rows[rows.length - 1]
    return reply
      .header('cache-control', 'no-store')
      .header('data-visibility', full ? 'full' : 'public')
      .send({
        object: 'list',
        data: (await enriched(rows, full)).map((row) => viewOf(resource, row, full, deps)),
        has_more: hasMore,
        next_cursor:
          hasMore && last ? encodeCursor(resource, params.sortText, params.sort, last) : null,
        total_count: total,
      })
  }

  async function create(request: FastifyRequest, reply: FastifyReply) {
    const context = writer(request)
    requireJsonContent(request.headers['content-type'])
    const body = requireObject(request.body)
    const owner = await loadParent(request, true)
    return idempotentPost(request, reply, context, async () => {
      const values = parseWrite(resource, body, 'create')
      const id = deps.random.id(resource.idPrefix)
      Object.assign(values, { id, created_at: context.now, updated_at: context.now })
      if (owner && resource.parent) values[resource.parent.column] = owner.id
      return atomically(context, async (tx, txStore) => {
        const existing = await resource.existing?.(tx, values)
        if (existing) return { status: 200, id: existing }
        await resource.beforeCreate?.(tx, values)
        if (resource.ownership.kind === 'person') resource.ownership.claim?.(tx, values)
        await requireOwner(resource, tx, values)
        await resource.beforeWrite?.(tx, values)
        await checkUnique(txStore, values)
        await write(() => txStore.insert(values))
        await resource.afterWrite?.(tx, id, values)
        return { status: 201, id }
      })
    })
  }

  if (has('list')) {
    api.get(base, list)
    if (nested) api.get(nested, list)
  }
  if (has('create')) api.post(nested || base, create)

  if (has('get'))
    api.get(item, async (request, reply) => {
      const full = readerOf(request)
      return send(reply, 200, await load(request, full), full)
    })

  if (has('update'))
    api.patch(item, async (request, reply) => {
      const context = writer(request)
      requireJsonContent(request.headers['content-type'])
      const row = await load(request, true)
      checkIfMatch(request.headers['if-match'], etagOf(viewOf(resource, row, true, deps)))
      const values = parseWrite(resource, requireObject(request.body), 'update', row)
      const id = row.id as string
      await atomically(context, async (tx, txStore) => {
        // The record must be the caller's before the change, and still be theirs after it.
        await requireOwner(resource, tx, row)
        await requireOwner(resource, tx, { ...row, ...values })
        await resource.beforeWrite?.(tx, values, row)
        await checkUnique(txStore, values, id)
        await write(() => txStore.update(id, { ...values, updated_at: context.now }))
        await resource.afterWrite?.(tx, id, values, row)
      })
      return send(reply, 200, (await findFull(id)) ?? row, true)
    })

  if (has('delete'))
    api.delete(item, async (request, reply) => {
      const context = writer(request)
      const row = await load(request, true)
      checkIfMatch(request.headers['if-match'], etagOf(viewOf(resource, row, true, deps)))
      await atomically(context, async (tx, txStore) => {
        await requireOwner(resource, tx, row)
        await resource.beforeDelete?.(tx, row)
        if (resource.remove) await resource.remove(tx, row)
        else await txStore.remove(row.id as string)
      })
      return reply.code(204).send()
    })

  for (const action of resource.actions ?? []) registerAction(action)

  function registerAction(action: Action) {
    api.post(`${item}/${action.name}`, async (request, reply) => {
      const context = writer(request)
      let input: Record<string, unknown> = {}
      if (request.body !== undefined && request.body !== null) {
        requireJsonContent(request.headers['content-type'])
        const errors: FieldError[] = []
        input = checkMembers(action.input ?? {}, requireObject(request.body), 'body', errors) ?? {}
        if (errors.length > 0)
          throw validationFailed(
            errors.map((e) => ({ ...e, field: e.field.replace(/^body\./, '') })),
          )
      }
      const row = await load(request, true)
      checkIfMatch(request.headers['if-match'], etagOf(viewOf(resource, row, true, deps)))
      await requireOwner(resource, context, row)
      return idempotentPost(request, reply, context, async () => ({
        status: action.creates ? 201 : 200,
        id: await action.run(context, row, input),
      }))
    })
  }
}
