import { sql } from 'kysely'
import type { AppDeps } from '../../app-deps.js'
import { roleAllows } from '../../oauth/roles.js'
import {
  consumeApproval,
  insertApproval,
  liveApprovalFor,
  pendingCount,
  policyOf,
} from '../../storage/approvals.js'
import type { TokenCaller } from '../caller.js'
import type { Row } from '../framework/fields.js'
import type { ApiOperation, OperationInput, OperationResult } from '../framework/operation.js'
import { RESOURCES } from '../registry.js'
import { ApprovalRequiredError, approvalRefused, tooManyWaiting } from './approval-problems.js'
import { argumentsDigest } from './arguments-digest.js'
import { describeCall } from './description.js'
import { type ConfirmationCall, declaredConfirmation, defaultConfirmation } from './policy.js'

/**
 * Issue 35: a write made with an access token waits for a yes when its confirmation (the
 * owners' setting, else the default of policy.ts) says so. The check wraps the operation in
 * the catalogue (operations.ts), so REST and MCP hold the same calls: the call is rehearsed
 * (its dry run: checks the caller, validates, finds the record), then answered 403
 * `approval_required` ({@link ApprovalRequiredError}) with a new or the pending approval.
 * After the yes, the same request by the same grant consumes the approval (one conditional
 * update, whatever instance) and runs once, its change recorded with the approver.
 */
export function confirming(deps: AppDeps, operation: ApiOperation): ApiOperation {
  if (operation.effect === 'read' || !deps.config.confirmations) return operation
  const declared = declaredConfirmation(operation)
  const table = tableOf(operation.name)
  const run = async (input: OperationInput): Promise<OperationResult> => {
    const { caller } = input
    // Only apps and agents are asked: not anonymous callers, not Portico acting for itself,
    // and never a rehearsal.
    if (caller.kind !== 'token' || caller.recorded === false || input.dryRun)
      return operation.run(input)
    if (!mayCall(operation, caller)) return operation.run(input) // refused as it would be
    const db = deps.database.db
    const setting = await policyOf(db, operation.name)
    if (setting === 'none' || (setting === undefined && declared === 'none'))
      return operation.run(input)
    const call = await rehearse(input)
    const level = setting ?? defaultConfirmation(operation, call)
    if (level === 'none') return operation.run(input)
    const now = deps.clock.now()
    const request = {
      grantId: caller.grantId,
      operation: operation.name,
      argumentsDigest: argumentsDigest(input),
    }
    // An approval asked at a lower level (before an owner raised the setting) does not count.
    const found = await liveApprovalFor(db, request, now)
    const live = found && RANK[found.level] >= RANK[level] ? found : undefined
    if (live?.status === 'approved' && (await consumeApproval(db, live.id, now))) {
      const approved: TokenCaller = {
        ...caller,
        approval: {
          id: live.id,
          approvedBy: live.decided_by ?? '',
          approvedAt: live.decided_at ?? now,
        },
      }
      return operation.run({ ...input, caller: approved })
    }
    if (live?.status === 'refused') throw approvalRefused(live.id, live.expires_at)
    // A grant asks for at most so many yeses at once: a client looping over changed
    // arguments cannot fill the database or the approver's list.
    if (live?.status !== 'pending' && (await pendingCount(db, caller.grantId, now)) >= MAX_WAITING)
      throw tooManyWaiting(MAX_WAITING)
    const pending =
      live?.status === 'pending'
        ? live
        : {
            id: deps.random.id('apr'),
            grant_id: caller.grantId,
            client_id: caller.clientId,
            user_id: caller.user.id,
            operation: operation.name,
            arguments_digest: request.argumentsDigest,
            level,
            status: 'pending' as const,
            description: await describeCall({ operation, ...call }, db),
            created_at: now,
            expires_at: now + deps.config.lifetimes.approval * 1000,
            decided_by: null,
            decided_at: null,
            used_at: null,
          }
    if (pending !== live) await insertApproval(db, pending)
    throw new ApprovalRequiredError({
      id: pending.id,
      url: `${deps.config.issuer}/approvals/${pending.id}`,
      expiresAt: pending.expires_at,
      level: pending.level === 'owner' ? 'owner' : 'person',
      description: pending.description,
    })
  }

  /**
   * The call's record: its dry run (which also refuses what the call itself would refuse,
   * so an invalid call is never held), and the stored row before it.
   */
  async function rehearse(input: OperationInput): Promise<ConfirmationCall> {
    const preview = operation.dryRun ? await operation.run({ ...input, dryRun: true }) : undefined
    const record = isRow(preview?.body) ? preview.body : undefined
    const id = typeof record?.id === 'string' ? record.id : input.params.id
    const before = table && id ? await readRow(deps, table, id) : undefined
    return { input, record, before }
  }

  return { ...operation, run }
}

/** The levels in order: an `owner` yes also answers a `person` one, never the other way round. */
const RANK = { none: 0, person: 1, owner: 2 } as const

/** Approvals one grant may have waiting at once. */
export const MAX_WAITING = 20

const isRow = (value: unknown): value is Row =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

/** Whether the caller has the scope and role the operation needs (else it is refused, not held). */
function mayCall(operation: ApiOperation, caller: TokenCaller): boolean {
  if (operation.scope !== undefined && !caller.scopes.has(operation.scope)) return false
  if (operation.scope !== undefined && !roleAllows(caller.user.role, operation.scope)) return false
  return !operation.roles || operation.roles.includes(caller.user.role)
}

/** The table of the resource an operation acts on (`members.update` → `users`). */
function tableOf(name: string): string | undefined {
  const collection = name.slice(0, name.indexOf('.'))
  return RESOURCES.find((resource) => resource.collection === collection)?.table
}

async function readRow(deps: AppDeps, table: string, id: string): Promise<Row | undefined> {
  const { rows } = await sql<Row>`select * from ${sql.table(table)} where id = ${id}`.execute(
    deps.database.db,
  )
  return rows[0]
}
