import type { Db } from './schema.js'
import type { ApprovalStatus, ApprovalTable, ConfirmationLevel } from './tables/activity.js'

/** An approval as stored (see tables/activity.ts), its times as numbers on every database. */
export type Approval = ApprovalTable

const toApproval = (row: ApprovalTable): Approval => ({
  ...row,
  created_at: Number(row.created_at),
  expires_at: Number(row.expires_at),
  decided_at: row.decided_at === null ? null : Number(row.decided_at),
  used_at: row.used_at === null ? null : Number(row.used_at),
})

/** The owners' setting for one operation, when they changed its default. */
export async function policyOf(db: Db, operation: string): Promise<ConfirmationLevel | undefined> {
  const row = await db
    .selectFrom('approval_policies')
    .select('level')
    .where('operation', '=', operation)
    .executeTakeFirst()
  return row?.level
}

/** Every setting the owners changed, by operation. */
export async function policies(db: Db): Promise<Map<string, ConfirmationLevel>> {
  const rows = await db.selectFrom('approval_policies').select(['operation', 'level']).execute()
  return new Map(rows.map((r) => [r.operation, r.level]))
}

/** Sets an operation's confirmation; `undefined` goes back to the default. */
export async function setPolicy(
  db: Db,
  operation: string,
  level: ConfirmationLevel | undefined,
  now: number,
): Promise<void> {
  if (level === undefined) {
    await db.deleteFrom('approval_policies').where('operation', '=', operation).execute()
    return
  }
  await db
    .insertInto('approval_policies')
    .values({ operation, level, updated_at: now })
    .onConflict((oc) => oc.column('operation').doUpdateSet({ level, updated_at: now }))
    .execute()
}

export async function findApproval(db: Db, id: string): Promise<Approval | undefined> {
  const row = await db.selectFrom('approvals').selectAll().where('id', '=', id).executeTakeFirst()
  return row && toApproval(row)
}

/**
 * The newest live approval (pending, approved or refused, not yet expired) of this grant for
 * this operation with these arguments.
 */
export async function liveApprovalFor(
  db: Db,
  request: { grantId: string; operation: string; argumentsDigest: string },
  now: number,
): Promise<Approval | undefined> {
  const row = await db
    .selectFrom('approvals')
    .selectAll()
    .where('grant_id', '=', request.grantId)
    .where('operation', '=', request.operation)
    .where('arguments_digest', '=', request.argumentsDigest)
    .where('status', 'in', ['pending', 'approved', 'refused'])
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst()
  return row && toApproval(row)
}

/**
 * The approvals waiting for a yes now (pending, unexpired), newest first: every one at the
 * school, or those of one person's apps (`userId`, the person the token acts for).
 */
export async function pendingApprovals(
  db: Db,
  now: number,
  options: { readonly userId?: string; readonly limit?: number } = {},
): Promise<Approval[]> {
  let query = db
    .selectFrom('approvals')
    .selectAll()
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(options.limit ?? 100)
  if (options.userId !== undefined) query = query.where('user_id', '=', options.userId)
  return (await query.execute()).map(toApproval)
}

/** How many approvals of a grant wait for a yes now (pending, unexpired). */
export async function pendingCount(db: Db, grantId: string, now: number): Promise<number> {
  const row = await db
    .selectFrom('approvals')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('grant_id', '=', grantId)
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}

export async function insertApproval(db: Db, approval: Approval): Promise<void> {
  await db.insertInto('approvals').values(approval).execute()
}

/**
 * Marks an approved, unexpired approval used; true for exactly one caller, whatever runs at
 * the same time on any instance (a conditional update, its row count checked).
 */
export async function consumeApproval(db: Db, id: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('approvals')
    .set({ status: 'used', used_at: now })
    .where('id', '=', id)
    .where('status', '=', 'approved')
    .where('expires_at', '>', now)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** Approves or refuses a pending, unexpired approval; false when it no longer is one. */
export async function decideApproval(
  db: Db,
  id: string,
  decision: Extract<ApprovalStatus, 'approved' | 'refused'>,
  by: string,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('approvals')
    .set({ status: decision, decided_by: by, decided_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** What became of the held calls of grants: refused on the page, or left to expire. */
export interface ApprovalOutcomes {
  readonly declined: number
  readonly expired: number
}

/** The declined and expired approvals of grants, by grant id (only grants that have some). */
export async function approvalOutcomesOf(
  db: Db,
  grantIds: readonly string[],
  now: number,
): Promise<Map<string, ApprovalOutcomes>> {
  if (grantIds.length === 0) return new Map()
  const rows = await db
    .selectFrom('approvals')
    .select(['grant_id', 'status', 'expires_at'])
    .where('grant_id', 'in', [...grantIds])
    .where((eb) =>
      eb.or([
        eb('status', '=', 'refused'),
        eb('status', '=', 'expired'),
        eb.and([eb('status', 'in', ['pending', 'approved']), eb('expires_at', '<=', now)]),
      ]),
    )
    .execute()
  const outcomes = new Map<string, { declined: number; expired: number }>()
  for (const row of rows) {
    const counts = outcomes.get(row.grant_id) ?? { declined: 0, expired: 0 }
    if (row.status === 'refused') counts.declined += 1
    else counts.expired += 1
    outcomes.set(row.grant_id, counts)
  }
  return outcomes
}

/** The declined and expired approvals of every grant, or of one client's grants. */
export async function approvalOutcomesList(
  db: Db,
  now: number,
  clientId?: string,
): Promise<Array<ApprovalOutcomes & { grantId: string; clientId: string; userId: string }>> {
  let query = db
    .selectFrom('approvals')
    .select(['grant_id', 'client_id', 'user_id'])
    .where((eb) =>
      eb.or([
        eb('status', '=', 'refused'),
        eb.and([eb('status', 'in', ['pending', 'approved']), eb('expires_at', '<=', now)]),
      ]),
    )
    .groupBy(['grant_id', 'client_id', 'user_id'])
  if (clientId !== undefined) query = query.where('client_id', '=', clientId)
  const grants = await query.execute()
  const outcomes = await approvalOutcomesOf(
    db,
    grants.map((g) => g.grant_id),
    now,
  )
  return grants.map((g) => ({
    grantId: g.grant_id,
    clientId: g.client_id,
    userId: g.user_id,
    declined: outcomes.get(g.grant_id)?.declined ?? 0,
    expired: outcomes.get(g.grant_id)?.expired ?? 0,
  }))
}

/**
 * Marks the pending and approved approvals past their time `expired` (they already count as
 * expired everywhere), and deletes those made before `before` (the activity record's
 * retention).
 */
export async function sweepApprovals(db: Db, before: number, now: number): Promise<void> {
  await db
    .updateTable('approvals')
    .set({ status: 'expired' })
    .where('status', 'in', ['pending', 'approved'])
    .where('expires_at', '<=', now)
    .execute()
  await db.deleteFrom('approvals').where('created_at', '<', before).execute()
}

/** Who a change outside the API is recorded as (the activity record's app and person). */
export interface ActivityAuthor {
  readonly user_id: string
  readonly client_id: string
  readonly client_name: string
  readonly grant_id: string
}

/** Who changes a confirmation setting outside the API: the command line on the server. */
export const POLICY_CHANGER: ActivityAuthor = {
  user_id: 'portico-cli',
  client_id: 'portico-cli',
  client_name: 'portico command line',
  grant_id: 'portico-cli',
}

/**
 * Changes an operation's confirmation and records the change in the activity record, in one
 * transaction: `approvals.policy` on the record `approval_policy` named by the operation.
 */
export async function changePolicy(
  db: Db,
  change: {
    id: string
    operation: string
    before: ConfirmationLevel | undefined
    after: ConfirmationLevel | undefined
    now: number
    /** Who changed it: the command line unless said (an owner on the Apps and agents page). */
    by?: ActivityAuthor
  },
): Promise<void> {
  const by = change.by ?? POLICY_CHANGER
  await db.transaction().execute(async (trx) => {
    await setPolicy(trx, change.operation, change.after, change.now)
    await trx
      .insertInto('activity')
      .values({
        id: change.id,
        created_at: change.now,
        updated_at: change.now,
        user_id: by.user_id,
        client_id: by.client_id,
        client_name: by.client_name,
        grant_id: by.grant_id,
        client_url: null,
        operation: 'approvals.policy',
        record_type: 'approval_policy',
        record_id: change.operation,
        changes: JSON.stringify([
          {
            field: 'confirmation',
            before: change.before ?? 'default',
            after: change.after ?? 'default',
          },
        ]),
        approval_id: null,
        approved_by: null,
        approved_at: null,
      })
      .execute()
  })
}
