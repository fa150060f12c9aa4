import type { AppDeps } from '../../app-deps.js'
import { decideApproval, findApproval } from '../../storage/approvals.js'
import type { TokenCaller } from '../caller.js'

/**
 * For a binding that asks the person in their own client (MCP form elicitation, issue 35):
 * records their answer to an approval held for this very grant. Only a `person`
 * confirmation can be answered this way, by the person the token acts for; an `owner` one
 * is answered on Portico's page, never through the agent's client (which could answer for
 * them). True when the answer was taken; false when the approval is not this grant's, not
 * the person's to answer here, no longer pending, or expired: nothing changes then.
 */
export async function answerInClient(
  deps: AppDeps,
  approvalId: string,
  caller: TokenCaller,
  accept: boolean,
): Promise<boolean> {
  const db = deps.database.db
  const approval = await findApproval(db, approvalId)
  if (
    approval?.level !== 'person' ||
    approval.grant_id !== caller.grantId ||
    approval.user_id !== caller.user.id
  )
    return false
  return decideApproval(
    db,
    approval.id,
    accept ? 'approved' : 'refused',
    caller.user.id,
    deps.clock.now(),
  )
}
