import type { ConfirmationLevel } from '../../storage/tables/activity.js'
import { ProblemError } from '../problem.js'

/** What a binding needs to send the approver to the approval page. */
export interface PendingApproval {
  readonly id: string
  /** Absolute: the issuer + `/approvals/<id>`. */
  readonly url: string
  readonly expiresAt: number
  readonly level: Exclude<ConfirmationLevel, 'none'>
  readonly description: string
}

const WHO = {
  person: 'the person this app acts for',
  owner: 'an owner or admin of the school',
} as const

/**
 * 403 `approval_required` (issue 35): the call was not run; it waits for a yes on the
 * approval page. Its members `approval_url`, `approval_id` and `expires_at` are in the
 * problem; `approval` carries the same for a binding that asks otherwise (MCP's URL
 * elicitation). Repeating the same request by the same grant after the yes runs it once.
 */
export class ApprovalRequiredError extends ProblemError {
  override name = 'ApprovalRequiredError'
  readonly approval: PendingApproval

  constructor(approval: PendingApproval) {
    super(403, {
      code: 'approval_required',
      title: 'Approval required',
      detail: `${approval.description} Nothing was changed: this call needs a yes from ${WHO[approval.level]} at approval_url; after it, repeat the same request.`,
      approval_url: approval.url,
      approval_id: approval.id,
      expires_at: new Date(approval.expiresAt).toISOString(),
      confirmation: approval.level,
    })
    this.approval = approval
  }
}

/**
 * 403 `approval_refused`: the approver said no to this very request (same grant, operation
 * and arguments). Until the refused approval would have expired, repeating it is answered
 * so; a changed request asks again.
 */
export function approvalRefused(id: string, expiresAt: number): ProblemError {
  return new ProblemError(403, {
    code: 'approval_refused',
    title: 'Approval refused',
    detail:
      'The approver refused this request; nothing was changed. The same request is refused until expires_at; after that it can be asked again.',
    approval_id: id,
    expires_at: new Date(expiresAt).toISOString(),
  })
}

/** 429 `too_many_approvals`: this grant already has `max` requests waiting for a yes. */
export function tooManyWaiting(max: number): ProblemError {
  return new ProblemError(
    429,
    {
      code: 'too_many_approvals',
      title: 'Too Many Requests',
      detail: `this app already has ${max} requests waiting for a yes; wait for an answer, or for them to expire`,
    },
    { 'retry-after': '60' },
  )
}
