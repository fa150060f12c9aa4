import { conflict } from '../conventions.js'
import type { Field, Row } from './fields.js'
import type { Action, ResourceContext } from './resource.js'

/**
 * One declared status change, served as the action of its name (`POST …/{id}/publish`): the
 * record's `column` takes the value `to`. A record already there is answered unchanged; a
 * record in a state `refuse` names is refused (409, with its reason); `check` may refuse
 * the rest (422 for what the record lacks).
 */
export interface Transition<R extends Row = Row> {
  readonly summary: string
  /** The value the column takes. */
  readonly to: string | number
  /** The column that holds the state; `status` unless given (a coupon's `enabled`). */
  readonly column?: string
  /** States the change refuses (409), each with the reason given to the caller. */
  readonly refuse?: Readonly<Record<string, string>>
  /** A time column set to the time of each change (`canceled_at`). */
  readonly stamp?: string
  /** A time column set at the first such change only: `published_at` survives an unpublish. */
  readonly stampOnce?: string
  /** Further columns the change sets, or computed from the action's input and the record. */
  readonly set?: Row | ((input: Record<string, unknown>, row: R) => Row)
  /** The members the action's JSON body may carry. */
  readonly input?: Readonly<Record<string, Field>>
  /** What the record must satisfy first (a plan needs an active price); throws a problem. */
  readonly check?: (context: ResourceContext, row: R) => Promise<void> | void
  /** Runs after the change (a notification). */
  readonly after?: (
    context: ResourceContext,
    row: R,
    input: Record<string, unknown>,
  ) => Promise<void> | void
}

/** A resource's status changes, by action name, in the order they are served. */
export type Lifecycle<R extends Row = Row> = Readonly<Record<string, Transition<R>>>

/** The actions of a lifecycle on `table`'s records. */
export function lifecycleActions<R extends Row>(
  table: string,
  lifecycle: Lifecycle<R>,
): Action<R>[] {
  return Object.entries(lifecycle).map(([name, transition]) => ({
    name,
    summary: transition.summary,
    ...(transition.input && { input: transition.input }),
    async run(context, row, input) {
      const id = String(row.id)
      const state = row[transition.column ?? 'status']
      if (state === transition.to) return id
      const refused = transition.refuse?.[String(state)]
      if (refused !== undefined) throw conflict(refused)
      await transition.check?.(context, row)
      const set = typeof transition.set === 'function' ? transition.set(input, row) : transition.set
      await context.db
        .updateTable(table)
        .set({
          [transition.column ?? 'status']: transition.to,
          ...(transition.stamp && { [transition.stamp]: context.now }),
          ...(transition.stampOnce && {
            [transition.stampOnce]: row[transition.stampOnce] ?? context.now,
          }),
          ...set,
          updated_at: context.now,
        })
        .where('id', '=', id)
        .execute()
      await transition.after?.(context, row, input)
      return id
    },
  }))
}
