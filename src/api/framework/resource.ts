import type { Selectable } from 'kysely'
import type { AppDeps } from '../../app-deps.js'
import type { Role } from '../../oauth/roles.js'
import type { Schema } from '../../storage/schema.js'
import type { Caller } from '../caller.js'
import { timestamp } from '../conventions.js'
import { asStored, type Field, type Row } from './fields.js'
import { type Lifecycle, lifecycleActions } from './lifecycle.js'
import type { FilterCondition, ResourceDb, Visibility } from './store.js'

export type Operation = 'list' | 'get' | 'create' | 'update' | 'delete'

/** Column → the values it may hold; all must match. An empty condition matches every row. */
export type Condition = Readonly<Record<string, readonly (string | number)[]>>

/**
 * A list filter that is not a field's own column comparison: a derived value, another column,
 * a subquery. `field` parses the query value (and says whether ranges apply); `where` turns
 * it into a condition on the resource's rows.
 */
export interface QueryFilter {
  readonly field: Field
  readonly where: FilterCondition
  /**
   * The fields (or `created_at`, `updated_at`, `id`) whose values the condition reads. Callers
   * who see only the public projection may use the filter only when every one is public:
   * a filter on a hidden column would answer questions about it (an oracle).
   */
  readonly reads: readonly string[]
  readonly description?: string
}

/**
 * Who owns a record, answered in every resource's declaration (issue 16, "ownership within
 * roles"). Either the school owns every record, and each role that may write writes them all
 * (`school`, with the reason), or a person owns each record (`person`): the `limited` roles
 * write only the records `owns` says are theirs, while the other write roles write them all.
 */
export type Ownership =
  | { readonly kind: 'school'; readonly reason: string }
  | {
      readonly kind: 'person'
      /** Roles that write only their own records (every one of them is also a write role). */
      readonly limited: readonly Role[]
      /** Who owns a record, in words (for the docs and the 403). */
      readonly rule: string
      /**
       * Whether the caller owns the row: a stored one, or the columns a create or an update
       * would store. Runs inside the write's transaction.
       */
      owns(context: ResourceContext, row: Row): Promise<boolean>
      /** Marks a new record as the caller's (e.g. `created_by`) before `owns` checks it. */
      claim?(context: ResourceContext, values: Row): void
    }

/** What a hook or an action works with. */
export interface ResourceContext {
  readonly deps: AppDeps
  readonly db: ResourceDb
  readonly caller: Extract<Caller, { kind: 'token' }>
  readonly now: number
  /** A dry run: the transaction will be rolled back, so act on nothing outside it (no mail, no log of a change). */
  readonly dryRun?: boolean
}

/** A state change or other operation beyond CRUD, served as `POST {path}/{id}/{name}`. */
export interface Action<R extends Row = Row> {
  readonly name: string
  readonly summary: string
  /** 200 with the changed object, or 201 with a new one (duplicate). */
  readonly creates?: boolean
  /** The members its JSON body may carry (none when absent). */
  readonly input?: Readonly<Record<string, Field>>
  /** Returns the id of the object to answer with (the same one, or the new one). */
  run(context: ResourceContext, row: R, input: Record<string, unknown>): Promise<string>
}

/**
 * Everything about one resource; the framework derives routes, queries and documents. `R` is
 * the row its hooks receive: `Row` for the framework, the table's typed row in a declaration.
 */
export interface ResourceDefinition<R extends Row = Row> {
  /** The `object` member of each record, e.g. `course`. */
  readonly object: string
  /** The collection name: the path segment after /api/v1/, equal to the scope resource. */
  readonly collection: string
  readonly table: string
  /** Id prefix without the underscore, e.g. `crs`. */
  readonly idPrefix: string
  /** The write scope is absent for read-only resources (orders, comments, forms). */
  readonly scopes: { readonly read: string; readonly write?: string }
  /** Roles that may write, on top of holding the write scope. */
  readonly writeRoles: readonly Role[]
  /** Who owns a record: which of the write roles write only their own (see `Ownership`). */
  readonly ownership: Ownership
  readonly fields: Readonly<Record<string, Field>>
  readonly operations: readonly Operation[]
  /** Rows of the table that belong to this resource (members: the team roles of `users`). */
  readonly rows?: Condition
  /** The row id of a singleton (`/api/v1/school`): only get and update, no id in the path. */
  readonly singleton?: string
  /**
   * Which records callers without the read scope see (in the public projection). `get`
   * applies to single reads, `list` to collections (defaults to `get`). Absent: nothing is
   * public, and reading needs the scope.
   */
  readonly public?: {
    readonly get: Condition
    readonly list?: Condition
    /** The parent record must be public too (a lesson of an unpublished course is not). */
    readonly withParent?: boolean
    /** A time column that must be set and not in the future (scheduled publication). */
    readonly since?: string
    /**
     * A further SQL condition for what column values cannot say (a comment is public when
     * its target post is public), built for the time of the request.
     */
    readonly where?: (now: number) => Visibility
  }
  /**
   * The record belongs to a parent (a section to a course): lists and creates are also served
   * under `{parent path}/{id}/{segment}`, and `column` holds the parent's id. `segment` is
   * the collection unless given (a form's `submissions` are the `form_submissions`).
   */
  readonly parent?: {
    readonly resource: () => ResourceDefinition
    readonly column: string
    readonly segment?: string
  }
  /** Filters beyond the fields' `filter` option (a field's own filter wins on a name clash). */
  readonly filters?: Readonly<Record<string, QueryFilter>>
  /** A field whose value also identifies a record in the `{id}` position. */
  readonly slugField?: string
  /** The order of a list without `sort`, e.g. `-created_at` or `position`. */
  readonly defaultSort?: string
  /**
   * Loads derived values for rows about to be shown (counts, stats, child records), in one
   * batch per page: it adds keys to each row, which `computed` then turns into members.
   */
  readonly enrich?: (db: ResourceDb, rows: R[], full: boolean, now: number) => Promise<void>
  /** Extra members computed from the row (after the fields). */
  readonly computed?: (row: R, full: boolean, deps: AppDeps) => Record<string, unknown>
  /** Fills server-made columns before insert (slug, position …); may throw a problem. */
  readonly beforeCreate?: (context: ResourceContext, values: Partial<R>) => Promise<void>
  /**
   * A record the create would duplicate (an enrollment of the same student in the same
   * course): the create then answers 200 with it instead of making another.
   */
  readonly existing?: (context: ResourceContext, values: Partial<R>) => Promise<string | undefined>
  /**
   * What the create does to the record `existing` found instead (an ended enrollment is made
   * active again); the activity record keeps what changed, as for an update.
   */
  readonly reuse?: (context: ResourceContext, row: R, values: Partial<R>) => Promise<void>
  /** Checks a write (create or update) after field validation; `existing` on updates. */
  readonly beforeWrite?: (
    context: ResourceContext,
    values: Partial<R>,
    existing?: R,
  ) => Promise<void>
  /**
   * Stores what a create or update keeps outside the table (the `virtual` fields, as child
   * rows), after the record's row is written; `existing` on updates.
   */
  readonly afterWrite?: (
    context: ResourceContext,
    id: string,
    values: Partial<R>,
    existing?: R,
  ) => Promise<void>
  /** Refuses a delete (409) while something depends on the record. */
  readonly beforeDelete?: (context: ResourceContext, row: R) => Promise<void>
  /** How a delete is carried out, when it is not removing the row (members are demoted). */
  readonly remove?: (context: ResourceContext, row: R) => Promise<void>
  readonly actions?: readonly Action<R>[]
  readonly summary?: string
}

/** The tables a resource may be declared on. */
export type TableName = keyof Schema & string

/** A row of table `T` as a declaration's hooks see it: its typed columns, and what `enrich` adds. */
export type RowOf<T extends TableName> = Selectable<Schema[T]> & Row

/**
 * A declaration: a resource on table `T`, its hooks typed against the table's rows, with the
 * features the framework turns into hooks and actions.
 */
export interface Declaration<T extends TableName> extends ResourceDefinition<RowOf<T>> {
  readonly table: T
  /** Status changes served as actions (publish, archive …), before the other `actions`. */
  readonly lifecycle?: Lifecycle<RowOf<T>>
  /**
   * The column that orders the records (`position`): a create that leaves it out puts the
   * record after the last one (the greatest value plus one; 0 for the first).
   */
  readonly newLast?: string
}

/**
 * Declares a resource: checks the declaration against its table's row type and folds its
 * declared features into the hooks and actions every binding serves.
 */
export function defineResource<T extends TableName>(
  declaration: Declaration<T>,
): ResourceDefinition {
  const { lifecycle, newLast, ...definition } = declaration
  const beforeCreate = definition.beforeCreate
  return {
    ...(definition as ResourceDefinition),
    ...(lifecycle && {
      actions: [
        ...lifecycleActions(declaration.table, lifecycle),
        ...(definition.actions ?? []),
      ] as readonly Action[],
    }),
    ...(newLast && {
      async beforeCreate(context: ResourceContext, values: Row) {
        if (values[newLast] === undefined)
          values[newLast] = await nextPosition(context, declaration.table, newLast)
        await beforeCreate?.(context, values as Partial<RowOf<T>>)
      },
    }),
  }
}

/** The value of `column` that puts a new record after every other: max + 1, 0 for the first. */
async function nextPosition(
  context: ResourceContext,
  table: string,
  column: string,
): Promise<number> {
  const last = await context.db
    .selectFrom(table)
    .select((eb) => eb.fn.max(column).as('last'))
    .executeTakeFirst()
  return last?.last === null || last?.last === undefined ? 0 : Number(last.last) + 1
}

export function pathOf(resource: ResourceDefinition): string {
  return `/api/v1/${resource.collection}`
}

/** A record's members as one projection shows them: id, object and the fields. */
type Projector = (row: Row) => Record<string, unknown>

/** The compiled projections of each resource, full and public. */
const projectors = new WeakMap<ResourceDefinition, { full: Projector; public: Projector }>()

/**
 * A projection compiled from the declaration: one object literal with the members in
 * declaration order, each column read by name and converted by its field (a field stored as
 * its JSON value read as it is). Building the object member by member, looking each field
 * up and calling its conversion, cost about as much as reading the rows of a list (npm run
 * bench, profiled). The generated code holds nothing but member names, written as JSON
 * string literals, and indexes into the conversions it is given.
 */
function compileProjection(object: string, shown: ReadonlyArray<readonly [string, Field]>) {
  const conversions = shown.map(([, field]) => field.fromColumn)
  const members = shown.map(([name, field], i) => {
    const key = JSON.stringify(name)
    const value = `row[${key}] ?? null`
    return `${key}: ${field.fromColumn === asStored ? value : `convert[${i}](${value})`}`
  })
  const body = `return (row) => ({ id: row.id, object, ${members.join(', ')} })`
  return new Function('object', 'convert', body)(object, conversions) as Projector
}

function projectorsOf(resource: ResourceDefinition) {
  let made = projectors.get(resource)
  if (!made) {
    const full = Object.entries(resource.fields)
    made = {
      full: compileProjection(resource.object, full),
      public: compileProjection(
        resource.object,
        full.filter(([, field]) => field.options.public),
      ),
    }
    projectors.set(resource, made)
  }
  return made
}

/** The JSON of a record: the full one, or only the public fields. */
export function viewOf(
  resource: ResourceDefinition,
  row: Row,
  full: boolean,
  deps: AppDeps,
): Record<string, unknown> {
  const projectors = projectorsOf(resource)
  const out = (full ? projectors.full : projectors.public)(row)
  if (resource.computed) Object.assign(out, resource.computed(row, full, deps))
  out.created_at = timestamp(row.created_at as number)
  out.updated_at = timestamp(row.updated_at as number)
  return out
}
