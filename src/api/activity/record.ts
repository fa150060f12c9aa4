import type { AppDeps } from '../../app-deps.js'
import { insertActivity } from '../../storage/activity.js'
import type { Db } from '../../storage/schema.js'
import type { TokenCaller } from '../caller.js'
import type { Change } from './changes.js'

/** Where a change is recorded: inside its transaction, by whom, when. */
export interface RecordingContext {
  readonly deps: AppDeps
  /** The change's own transaction: the record commits or rolls back with it. */
  readonly db: unknown
  readonly caller: TokenCaller
  readonly now: number
  /** A rehearsal (rolled back anyway): nothing is recorded. */
  readonly dryRun?: boolean
}

/** What changed: the operation, the record it changed, and the fields. */
export interface ChangeEntry {
  /** The operation's name, e.g. `courses.update`. */
  readonly operation: string
  /** The record's `object`, e.g. `course`. */
  readonly recordType?: string
  readonly recordId?: string
  readonly changes?: readonly Change[]
}

/**
 * Records a change made with an access token (issue 21), in the transaction that made it.
 * Every write path of the API calls this once per change: the resource framework for
 * declared resources, each hand-written endpoint for its own.
 */
export async function recordChange(context: RecordingContext, entry: ChangeEntry): Promise<void> {
  const { caller } = context
  if (context.dryRun || caller.recorded === false) return
  await insertActivity(context.db as Db, {
    id: context.deps.random.id('act'),
    created_at: context.now,
    user_id: caller.user.id,
    client_id: caller.clientId,
    grant_id: caller.grantId,
    operation: entry.operation,
    record_type: entry.recordType ?? null,
    record_id: entry.recordId ?? null,
    changes: JSON.stringify(entry.changes ?? []),
    approval_id: caller.approval?.id ?? null,
    approved_by: caller.approval?.approvedBy ?? null,
    approved_at: caller.approval?.approvedAt ?? null,
  })
}
