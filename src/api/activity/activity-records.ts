import type { AppDeps } from '../../app-deps.js'
import { encodeCursor } from '../framework/cursor.js'
import { type Field, instant, text } from '../framework/fields.js'
import { parseListParams } from '../framework/list-params.js'
import { defineResource } from '../framework/resource.js'
import { byName } from '../framework/resource-db.js'
import { createResourceStore, type Filter } from '../framework/store.js'
import { structure } from '../framework/structures.js'
import { shown, view } from '../framework/views.js'

const readOnly = { readOnly: true } as const
const nullableText = (description: string) => text({ ...readOnly, nullable: true, description })

/** A filter on one column by equality, under a name of its own (`client` for `client_id`). */
const equalTo = (column: string, description: string) => ({
  field: text(),
  where: (eb: Parameters<NonNullable<Filter['where']>>[0], _op: unknown, value: unknown) =>
    eb(column, '=', value),
  reads: [] as string[],
  description,
})

/** An instant as a query value, compared by the filter's own rule (no `[gte]` ranges). */
const since: Field = { ...instant(), filterKind: 'equal' }

/** One changed field: its name, and its values before and after when the record keeps them. */
const change = view(
  { field: shown.string(), before: shown.any(), after: shown.any() },
  { required: ['field'] },
)

/** The JSON Schema of the changes of a record (its description before its items, as it always was). */
const { items: changeItems, ...changesHead } = shown.list(change, {
  description:
    'The fields that changed, in declaration order; before (absent on a create) and after (absent on a delete) for closed values (states, numbers, times, ids), money and short text (at most 200 characters); long or rich text, links, addresses and secret-like fields by name only',
}).schema
const changesList = { ...changesHead, items: changeItems }

/**
 * The activity record as the list machinery reads it (issue 21): not one of the API's
 * resources (nothing writes it through the API), but declared like one, so that its list
 * takes the same filters, keyset cursors and limits as every other collection.
 */
export const activityRecords = defineResource({
  object: 'activity',
  collection: 'activity',
  table: 'activity',
  idPrefix: 'act',
  summary: 'What each app changed with its access token',
  scopes: { read: 'school:read' },
  writeRoles: [],
  ownership: { kind: 'school', reason: 'Written only by the API itself, as a record of changes' },
  operations: ['list'],
  defaultSort: '-created_at',
  fields: {
    user_id: text({ ...readOnly, description: 'The person whose token made the change' }),
    client_id: text({ ...readOnly, description: 'The app (OAuth client) that made it' }),
    client_name: nullableText('The app’s name at the time'),
    client_url: nullableText('The metadata document URL of a Client ID Metadata Document app'),
    grant_id: text({ ...readOnly, description: 'The grant (connection) the token belonged to' }),
    operation: text({
      ...readOnly,
      filter: true,
      description: 'The operation, e.g. courses.update',
    }),
    record_type: nullableText('The changed record’s object, e.g. course'),
    record_id: text({ ...readOnly, nullable: true, filter: true, description: 'Its id' }),
    changes: structure(changesList, () => undefined, readOnly),
    approval_id: nullableText('The approval the change waited for (apr_…), when it needed a yes'),
    approved_by: nullableText('Who said yes to it: the user id of the person, owner or admin'),
    approved_at: instant({
      ...readOnly,
      nullable: true,
      description: 'When the yes was given',
    }),
  },
  filters: {
    client: equalTo('client_id', 'Only the changes of this client_id'),
    person: equalTo('user_id', 'Only the changes made with this person’s tokens'),
    resource: equalTo('record_type', 'Only changes of records of this object, e.g. course'),
    since: {
      field: since,
      where: (eb, _op, value) => eb('created_at', '>=', value),
      reads: [],
      description: 'Only changes at or after this time (RFC 3339)',
    },
    until: {
      field: since,
      where: (eb, _op, value) => eb('created_at', '<', value),
      reads: [],
      description: 'Only changes before this time (RFC 3339)',
    },
  },
})

/**
 * One activity record as the API answers it: its id, object and time, then the declared
 * fields (text as stored, the changes parsed from their JSON).
 */
const activity = view<Record<string, unknown>>(
  {
    id: shown.id('act'),
    object: shown.constant('activity'),
    created_at: shown.time(),
    ...Object.fromEntries(
      Object.entries(activityRecords.fields).map(([name, field]) => [name, shown.field(field)]),
    ),
  },
  { required: ['id', 'object', 'created_at', 'user_id', 'client_id', 'grant_id', 'operation'] },
)

/** The JSON of one activity record. */
export const activityView = (row: Record<string, unknown>) => activity.show(row)

/** The JSON Schema of {@link activityView}. */
export const activitySchema = activity.schema

/** A page of activity, newest first. */
export interface ActivityPage {
  readonly rows: Record<string, unknown>[]
  readonly hasMore: boolean
  readonly nextCursor: string | null
  readonly total: number
}

/**
 * A page of the activity record: `query` as a list's query string (filters, `limit`,
 * `cursor`; a 400 problem for anything else), narrowed to one person's changes when `userId`
 * is given (what a person who is not an owner or admin may see).
 */
export async function listActivity(
  deps: AppDeps,
  query: Record<string, unknown>,
  userId?: string,
): Promise<ActivityPage> {
  const params = parseListParams(activityRecords, query, deps.clock.now())
  const store = createResourceStore(byName(deps.database.db), activityRecords)
  const filters: Filter[] = [
    ...params.filters,
    ...(userId !== undefined ? [{ column: 'user_id', op: '=' as const, value: userId }] : []),
  ]
  const list = {
    filters,
    sort: params.sort,
    limit: params.limit,
    ...(params.after && { after: params.after }),
  }
  const [{ rows, hasMore }, total] = await Promise.all([store.list(list), store.count(list)])
  const last = rows[rows.length - 1]
  return {
    rows,
    hasMore,
    nextCursor:
      hasMore && last ? encodeCursor(activityRecords, params.sortText, params.sort, last) : null,
    total,
  }
}
