import type { AppDeps } from '../../app-deps.js'
import type { ResourceDb } from '../framework/store.js'
import { ProblemError } from '../problem.js'

/**
 * The one rule for blocked learners: a blocked learner gets no new access, by any path.
 * Every write that would grant, restore or lengthen a learner's access calls
 * {@link refuseBlockedLearner} inside its transaction: creating an enrollment (or enrolling
 * again, which reactivates a revoked or expired one), lengthening an enrollment, granting a
 * subscription, lengthening a manual grant or resuming a cancelling subscription, adding an
 * attendee to an event (with or without a ticket) and taking a canceled attendee back.
 * Ending or shortening access stays open; what a learner already holds is kept on block (the
 * block itself denies its use) and comes back on unblock. Invited learners are not blocked.
 */
export const LEARNER_BLOCKED = 'learner_blocked'

/** Who a write is for: a student by id, or else a person by e-mail address (lower-cased). */
export interface Learner {
  readonly student_id?: string | null
  readonly email?: string | null
}

/** The refusal every such path answers: 409 `learner_blocked`. */
export function learnerBlocked(studentId: string): ProblemError {
  return new ProblemError(409, {
    code: LEARNER_BLOCKED,
    title: 'Conflict',
    detail: `the student ${studentId} is blocked; unblock them first`,
  })
}

/**
 * Refuses (409 `learner_blocked`) a write that gives `learner` new access while they are
 * blocked; `db` is the write's transaction. The student is read by id when the write names
 * one, otherwise by the e-mail address (a person added by address who is a student); no such
 * student is not refused here. On PostgreSQL the student's row is share-locked until the
 * write commits, so a block cannot land between this check and the write: a block already
 * under way is waited for (and refuses), one that comes later finds the access granted.
 * SQLite runs one transaction at a time.
 */
export async function refuseBlockedLearner(
  { deps, db }: { readonly deps: AppDeps; readonly db: ResourceDb },
  learner: Learner,
): Promise<void> {
  const byId = typeof learner.student_id === 'string'
  const key = byId ? learner.student_id : learner.email?.toLowerCase()
  if (typeof key !== 'string') return
  let query = db
    .selectFrom('students')
    .select(['id', 'status'])
    .where(byId ? 'id' : 'email', '=', key)
  if (deps.database.dialect === 'postgres') query = query.forShare()
  const student = await query.executeTakeFirst()
  if (student?.status === 'blocked') throw learnerBlocked(String(student.id))
}

/**
 * Whether moving an end of access from `before` to `after` lengthens it (null: no end);
 * `after` undefined leaves it as it is.
 */
export function lengthensAccess(
  before: number | null | undefined,
  after: number | null | undefined,
): boolean {
  if (after === undefined) return false
  if (after === null) return before !== null && before !== undefined
  return typeof before === 'number' && after > before
}
