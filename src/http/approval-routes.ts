import type { FastifyReply, FastifyRequest } from 'fastify'
import type { AppDeps } from '../app-deps.js'
import { AuthorizePageError } from '../oauth/authorize/errors.js'
import { digest, secretMatches } from '../platform/crypto.js'
import { type Approval, decideApproval, findApproval } from '../storage/approvals.js'
import type { User } from '../storage/users.js'
import { type ApprovalState, approvalPage } from '../views/approval-page.js'
import { type CurrentSession, currentSession, logoutCsrf, redirect, sendPage } from './browser.js'
import type { RouteModule } from './deps.js'

/** An approval's id as the API makes it (`random.id('apr')`). */
export const APPROVAL_ID = /^apr_[A-Za-z0-9_-]{10,64}$/

const APPROVERS_FOR_OWNER = new Set(['owner', 'admin'])

/** The approval form's CSRF token: bound to the session and to the one approval. */
export const approvalCsrf = (sessionToken: string, id: string): string =>
  digest(`approval\0${sessionToken}\0${id}`)

const minutes = (ms: number) => `${new Date(ms).toISOString().replace('T', ' ').slice(0, 16)} UTC`

/** Where an approval stands now: a pending or approved one past its time has expired. */
export function stateOf(approval: Approval, now: number): ApprovalState {
  if (
    (approval.status === 'pending' || approval.status === 'approved') &&
    approval.expires_at <= now
  )
    return 'expired'
  return approval.status
}

/**
 * Who may decide: the person the token acts for (`person`), or any owner or admin of the
 * school (`owner`), signed in here; never the app.
 */
export function mayDecide(approval: Approval, user: User): boolean {
  return approval.level === 'owner'
    ? APPROVERS_FOR_OWNER.has(user.role)
    : approval.user_id === user.id
}

const NOT_FOUND = new AuthorizePageError(
  'Request not found',
  'There is no request waiting for approval at this address.',
  404,
)

const notTheApprover = (approval: Approval) =>
  new AuthorizePageError(
    'Not yours to approve',
    approval.level === 'owner'
      ? 'Only an owner or admin of the school can approve or refuse this request. Nothing was changed.'
      : 'Only the person the app acts for can approve or refuse this request. Sign in as them. Nothing was changed.',
    403,
  )

/**
 * Approves (`approve`) or refuses (`refuse`) a pending approval as `user`, who must be
 * allowed to ({@link mayDecide}: a 403 page otherwise, and nothing changes). The approval
 * page and the Apps and agents page both decide through here. True when decided now; false
 * when it was decided before or expired.
 */
export async function decideAsApprover(
  deps: AppDeps,
  request: FastifyRequest,
  approval: Approval,
  user: User,
  answer: unknown,
): Promise<boolean> {
  if (!mayDecide(approval, user)) throw notTheApprover(approval)
  const decision = answer === 'approve' ? 'approved' : answer === 'refuse' ? 'refused' : null
  if (decision === null)
    throw new AuthorizePageError('Choose an answer', 'Approve or refuse the request.', 400)
  const decided = await decideApproval(
    deps.database.db,
    approval.id,
    decision,
    user.id,
    deps.clock.now(),
  )
  if (decided)
    request.log.info(
      { event: `approval_${decision}`, approval_id: approval.id, user_id: user.id },
      'approval decided',
    )
  return decided
}

/** The approval the path names, and the signed-in person, who must be allowed to decide it. */
async function approvalFor(
  deps: AppDeps,
  request: FastifyRequest<{ Params: { id: string } }>,
): Promise<{ approval: Approval; current: CurrentSession | undefined }> {
  const { id } = request.params
  const approval = APPROVAL_ID.test(id) ? await findApproval(deps.database.db, id) : undefined
  if (!approval) throw NOT_FOUND
  const current = await currentSession(request, deps)
  if (current && !mayDecide(approval, current.session.user)) throw notTheApprover(approval)
  return { approval, current }
}

async function sendApprovalPage(
  deps: AppDeps,
  reply: FastifyReply,
  approval: Approval,
  current: CurrentSession,
) {
  const brand = await deps.school.brand()
  const client = await deps.clients.find(approval.client_id)
  const person = await deps.users.findById(approval.user_id)
  const decider = approval.decided_by ? await deps.users.findById(approval.decided_by) : undefined
  const { user } = current.session
  return sendPage(
    reply,
    200,
    approvalPage({
      school: brand.name,
      brand,
      id: approval.id,
      state: stateOf(approval, deps.clock.now()),
      clientName: client?.clientName,
      person: person ? `${person.name} <${person.email}>` : 'A former member',
      operation: approval.operation,
      description: approval.description,
      level: approval.level === 'owner' ? 'owner' : 'person',
      expiresAt: minutes(approval.expires_at),
      ...(approval.decided_at !== null && {
        decided: {
          by: decider ? `${decider.name} <${decider.email}>` : 'A former member',
          at: minutes(approval.decided_at),
        },
      }),
      userName: user.name,
      userEmail: user.email,
      csrf: approvalCsrf(current.token, approval.id),
      logoutCsrf: logoutCsrf(current.token),
    }),
    brand,
  )
}

/**
 * The approval page (issue 35): `GET /approvals/:id` shows what an app asks to do and, to
 * the one who may decide, Approve and Refuse; `POST` takes the answer once. Not signed in:
 * the sign-in page, then back here. Works without JavaScript; framed nowhere (pageHeaders).
 */
export const approvalRoutes: RouteModule = {
  register(app, deps) {
    const html = { config: { family: 'html' as const } }

    app.get<{ Params: { id: string } }>('/approvals/:id', html, async (request, reply) => {
      const { approval, current } = await approvalFor(deps, request)
      if (!current) return redirect(reply, `/login?approval=${encodeURIComponent(approval.id)}`)
      return sendApprovalPage(deps, reply, approval, current)
    })

    app.post<{ Params: { id: string }; Body: { csrf?: unknown; decision?: unknown } }>(
      '/approvals/:id',
      html,
      async (request, reply) => {
        const { approval, current } = await approvalFor(deps, request)
        if (!current) return redirect(reply, `/login?approval=${encodeURIComponent(approval.id)}`)
        const form = request.body ?? {}
        const csrf = typeof form.csrf === 'string' ? form.csrf : ''
        if (!secretMatches(csrf, digest(approvalCsrf(current.token, approval.id))))
          throw new AuthorizePageError(
            'Form expired',
            'This form is no longer valid. Reload the page and try again.',
            403,
          )
        await decideAsApprover(deps, request, approval, current.session.user, form.decision)
        // Decided now, or before (or expired): the page shows where it stands.
        return redirect(reply, `/approvals/${encodeURIComponent(approval.id)}`)
      },
    )
  },
}
