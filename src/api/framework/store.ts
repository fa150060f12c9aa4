import {
  type CompiledQuery,
  type Expression,
  type ExpressionBuilder,
  type SqlBool,
  sql,
} from 'kysely'
import { type CompiledRead, compiledQuery, compiledShape } from '../../storage/compiled-query.js'
import type { Db } from '../../storage/schema.js'
import type { Row, StoredRow } from './fields.js'
import type { Condition, ResourceDefinition } from './resource.js'
import { byName, type ResourceDb } from './resource-db.js'

export type { ResourceDb } from './resource-db.js'

type Eb = ExpressionBuilder<Record<string, Row>, string>

/** The SQL condition of a declared filter (`QueryFilter`), given its operator and value. */
export type FilterCondition = (
  eb: Eb,
  op: Filter['op'],
  value: unknown,
  now: number,
) => Expression<SqlBool>

/** One key of a sort: a column and its direction. */
export interface SortKey {
  readonly column: string
  readonly descending: boolean
}

/** A comparison on a filterable column. */
export interface Filter {
  readonly column: string
  readonly op: '=' | '>' | '>=' | '<' | '<='
  readonly value: unknown
  /** A declared filter's own condition, instead of comparing `column`. */
  readonly where?: (eb: Eb) => Expression<SqlBool>
}

export interface ListQuery {
  readonly filters: readonly Filter[]
  readonly search?: { readonly columns: readonly string[]; readonly text: string }
  readonly visible?: Visibility
  readonly sort: readonly SortKey[]
  /** The sort values and id of the last row of the previous page. */
  readonly after?: readonly unknown[]
  readonly limit: number
}

/** A condition on a table's rows, built into a query's where clause. */
export type Visibility = (eb: Eb) => Expression<SqlBool>

/**
 * Which rows callers without the read scope see, in SQL: the resource's own condition and,
 * when it says so, a parent that is itself visible (recursively), as a subquery. Lists use
 * the list condition of each level, single reads the get condition.
 */
export function visibilityOf(
  resource: ResourceDefinition,
  mode: 'get' | 'list',
  now: number,
  withParent = true,
): Visibility {
  const rules = resource.public
  const condition: Condition = rules ? (mode === 'list' && rules.list) || rules.get : {}
  const parent = withParent && rules?.withParent ? resource.parent : undefined
  const visibility: Visibility = (eb) => {
    const parts: Expression<SqlBool>[] = Object.entries(condition).map(([column, values]) =>
      eb(column, 'in', [...values]),
    )
    if (!rules) parts.push(sql<SqlBool>`1 = 0`)
    if (rules?.since) parts.push(eb(rules.since, '<=', now))
    if (rules?.where) parts.push(rules.where(now)(eb))
    if (parent) {
      const owner = parent.resource()
      const visible = visibilityOf(owner, mode, now)
      parts.push(eb(parent.column, 'in', eb.selectFrom(owner.table).select('id').where(visible)))
    }
    return eb.and(parts)
  }
  madeBy.set(visibility, { resource, mode, now, withParent })
  return visibility
}

/** What each condition of {@link visibilityOf} was made of, so that a list can be compiled. */
const madeBy = new WeakMap<
  Visibility,
  {
    readonly resource: ResourceDefinition
    readonly mode: 'get' | 'list'
    readonly now: number
    readonly withParent: boolean
  }
>()

/** The pattern of `q`: a case-insensitive substring, LIKE's wildcards taken literally. */
const searchPattern = (text: string) =>
  `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`

function whereOf(
  eb: Eb,
  query: Pick<ListQuery, 'filters' | 'visible'> & {
    readonly search?: { readonly columns: readonly string[]; readonly pattern: unknown }
  },
): Expression<SqlBool> {
  const parts: Expression<SqlBool>[] = query.filters.map((f) =>
    f.where ? f.where(eb) : eb(f.column, f.op, f.value),
  )
  if (query.visible) parts.push(query.visible(eb))
  if (query.search) {
    const { pattern } = query.search
    parts.push(
      eb.or(
        query.search.columns.map(
          (c) => sql<SqlBool>`lower(${sql.ref(c)}) like ${pattern} escape '\\'`,
        ),
      ),
    )
  }
  return eb.and(parts)
}

/**
 * Keyset pagination: rows strictly after `after` in the sort order (the sort keys, then the
 * id as a tie-breaker). Rows inserted meanwhile never shift a page boundary.
 */
function afterOf(eb: Eb, sort: readonly SortKey[], after: readonly unknown[]): Expression<SqlBool> {
  return eb.or(
    sort.map((key, i) =>
      eb.and([
        ...sort.slice(0, i).map((prev, j) => eb(prev.column, '=', after[j])),
        eb(key.column, key.descending ? '<' : '>', after[i]),
      ]),
    ),
  )
}

/** Distinct shapes of lists compiled per resource at most; others are built per request. */
const LIST_SHAPES = 32

/**
 * A list query (or its count) reduced to what its SQL depends on, and the values it binds:
 * undefined when a part of it is not known to bind its values (a declared filter's own
 * condition, a visibility made elsewhere), which is then built per request.
 */
function shapeOf(query: ListQuery, page: boolean) {
  const args: unknown[] = []
  const parts: string[] = []
  for (const filter of query.filters) {
    if (filter.where) return undefined
    parts.push(`f${JSON.stringify([filter.column, filter.op])}`)
    args.push(filter.value)
  }
  const visible = query.visible && madeBy.get(query.visible)
  if (query.visible) {
    if (!visible) return undefined
    parts.push(`v${JSON.stringify([visible.mode, visible.withParent])}`)
    args.push(visible.now)
  }
  if (query.search) {
    parts.push(`q${JSON.stringify(query.search.columns)}`)
    args.push(searchPattern(query.search.text))
  }
  if (page) {
    parts.push(`s${JSON.stringify(query.sort)}`)
    if (query.after) {
      parts.push('a')
      args.push(...query.after)
    }
    args.push(query.limit + 1)
  }
  return { key: parts.join(' '), args, visible }
}

/**
 * The list query of `query`'s shape, `args` in the order {@link shapeOf} gives them: its
 * filters' values, the time of the visibility, the search pattern, then (for a page) the
 * sort values of `after` and the limit.
 */
function buildList(
  db: ResourceDb,
  resource: ResourceDefinition,
  query: ListQuery,
  args: readonly unknown[],
  page: boolean,
) {
  let at = 0
  const next = () => args[at++]
  const filters = query.filters.map((f) => ({ column: f.column, op: f.op, value: next() }))
  const made = query.visible && madeBy.get(query.visible)
  const visible = made && visibilityOf(made.resource, made.mode, next() as number, made.withParent)
  const search = query.search && { columns: query.search.columns, pattern: next() }
  const own = resource.rows ?? {}
  const where = { filters, ...(visible && { visible }), ...(search && { search }) }
  if (!page) {
    return db
      .selectFrom(resource.table)
      .select((eb) => eb.fn.countAll().as('n'))
      .where((eb) => ownRows(eb, own))
      .where((eb) => whereOf(eb, where))
  }
  let select = db
    .selectFrom(resource.table)
    .selectAll()
    .where((eb) => ownRows(eb, own))
    .where((eb) => whereOf(eb, where))
  if (query.after) {
    const after = query.sort.map(() => next())
    select = select.where((eb) => afterOf(eb, query.sort, after))
  }
  for (const key of query.sort) select = select.orderBy(key.column, key.descending ? 'desc' : 'asc')
  return select.limit(next() as number)
}

const ownRows = (eb: Eb, own: Condition) =>
  eb.and(Object.entries(own).map(([column, values]) => eb(column, 'in', [...values])))

/** The compiled lists and counts of each resource, by shape. */
const compiledLists = new WeakMap<
  ResourceDefinition,
  Map<string, (db: Db, args: readonly unknown[]) => Promise<Row[]> | undefined>
>()

/**
 * Runs a list (`page`) or its count compiled once per shape: building and compiling it with
 * Kysely on every request cost about a tenth of a list of 20 (npm run bench, profiled).
 * Undefined when the shape is not compiled; the caller then builds the query itself.
 */
function runCompiledList(
  db: ResourceDb,
  resource: ResourceDefinition,
  query: ListQuery,
  page: boolean,
): Promise<Row[]> | undefined {
  const shape = shapeOf(query, page)
  if (!shape) return undefined
  let shapes = compiledLists.get(resource)
  if (!shapes) {
    shapes = new Map()
    compiledLists.set(resource, shapes)
  }
  const key = `${page ? 'page' : 'count'} ${shape.key}`
  let run = shapes.get(key)
  if (!run) {
    if (shapes.size >= LIST_SHAPES) return undefined
    run = compiledShape(shape.args.length, (kysely, args) =>
      buildList(byName(kysely), resource, query, args, page),
    )
    shapes.set(key, run)
  }
  return run(db, shape.args)
}

/** A list query's conditions with its search as a pattern. */
const withPattern = (query: ListQuery) => ({
  filters: query.filters,
  ...(query.visible && { visible: query.visible }),
  ...(query.search && {
    search: { columns: query.search.columns, pattern: searchPattern(query.search.text) },
  }),
})

/** The compiled single-row reads of each resource, by column. */
const compiledFinders = new WeakMap<
  ResourceDefinition,
  Map<string, CompiledRead<[key: string], Row>>
>()

/**
 * Every table a resource is declared on has its text `id` (storage/schema.ts says so of each,
 * checked against the migrations): the one place the framework's rows by name are known to.
 */
export const stored = (row: Row | undefined) => row as StoredRow | undefined
const storedRows = (rows: Row[]) => rows as StoredRow[]

/** The queries every resource shares, written once for both engines. */
export function createResourceStore(db: ResourceDb, resource: ResourceDefinition) {
  const table = resource.table
  const own = resource.rows ?? {}
  const ours = (eb: Eb) =>
    eb.and(Object.entries(own).map(([column, values]) => eb(column, 'in', [...values])))
  const virtual = new Set(
    Object.entries(resource.fields)
      .filter(([, f]) => f.options.virtual)
      .map(([name]) => name),
  )
  /** The values that are columns of the table (virtual fields are the resource's to store). */
  const columnsOf = (values: Row): Row =>
    virtual.size === 0
      ? values
      : Object.fromEntries(Object.entries(values).filter(([name]) => !virtual.has(name)))
  /**
   * A read of one row by a column, compiled once: building and compiling it with Kysely
   * took longer than SQLite's lookup on every single read (npm run bench, profiled).
   */
  const byColumn = (column: string) => {
    let finders = compiledFinders.get(resource)
    if (!finders) {
      finders = new Map()
      compiledFinders.set(resource, finders)
    }
    let finder = finders.get(column)
    if (!finder) {
      finder = compiledQuery((kysely: Db, key: string) =>
        byName(kysely).selectFrom(table).selectAll().where(column, '=', key).where(ours),
      )
      finders.set(column, finder)
    }
    return finder
  }
  /** The column a key names a record by: its id, or its slug when the resource has one. */
  const keyColumn = (key: string) =>
    resource.slugField && !key.startsWith(`${resource.idPrefix}_`) ? resource.slugField : 'id'
  return {
    async find(id: string): Promise<StoredRow | undefined> {
      return stored((await byColumn('id')(db, id))[0])
    },

    /**
     * By id, or by slug when the resource has one and the key is not an id; with `visible`,
     * only a row the public may see (in the same single query).
     */
    async findByKey(key: string, visible?: Visibility): Promise<StoredRow | undefined> {
      const column = keyColumn(key)
      if (!visible) return stored((await byColumn(column)(db, key))[0])
      return stored(
        await db
          .selectFrom(table)
          .selectAll()
          .where(column, '=', key)
          .where(ours)
          .where(visible)
          .executeTakeFirst(),
      )
    },

    /** The statement of `findByKey(key)` without a visibility, to run beside another read. */
    findByKeyStatement(key: string): CompiledQuery<Row> {
      return byColumn(keyColumn(key)).statement(db, key)
    },

    /** The page after `query.after`, one row more than the limit to tell whether more exist. */
    async list(query: ListQuery): Promise<{ rows: StoredRow[]; hasMore: boolean }> {
      const compiled = runCompiledList(db, resource, query, true)
      if (compiled) {
        const rows = storedRows(await compiled)
        return { rows: rows.slice(0, query.limit), hasMore: rows.length > query.limit }
      }
      let select = db
        .selectFrom(table)
        .selectAll()
        .where(ours)
        .where((eb) => whereOf(eb, withPattern(query)))
      if (query.after) {
        const after = query.after
        select = select.where((eb) => afterOf(eb, query.sort, after))
      }
      for (const key of query.sort)
        select = select.orderBy(key.column, key.descending ? 'desc' : 'asc')
      const rows = storedRows(await select.limit(query.limit + 1).execute())
      return { rows: rows.slice(0, query.limit), hasMore: rows.length > query.limit }
    },

    async count(query: ListQuery): Promise<number> {
      const compiled = runCompiledList(db, resource, query, false)
      if (compiled) return Number((await compiled)[0]?.n ?? 0)
      const row = await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .where(ours)
        .where((eb) => whereOf(eb, withPattern(query)))
        .executeTakeFirst()
      return Number(row?.n ?? 0)
    },

    async insert(values: Row): Promise<void> {
      await db.insertInto(table).values(columnsOf(values)).execute()
    },

    async update(id: string, values: Row): Promise<void> {
      await db.updateTable(table).set(columnsOf(values)).where('id', '=', id).where(ours).execute()
    },

    async remove(id: string): Promise<void> {
      await db.deleteFrom(table).where('id', '=', id).where(ours).execute()
    },

    /** Whether another record holds `value` in `column`. */
    async taken(column: string, value: unknown, exceptId?: string): Promise<boolean> {
      let select = db.selectFrom(table).select('id').where(column, '=', value)
      if (exceptId) select = select.where('id', '<>', exceptId)
      return (await select.limit(1).executeTakeFirst()) !== undefined
    },
  }
}

export type ResourceStore = ReturnType<typeof createResourceStore>
