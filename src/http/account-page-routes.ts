import { AuthorizePageError } from '../oauth/authorize/errors.js'
import { type Connection, listConnections, revokeGrants } from '../oauth/connections.js'
import { authorityRefusal } from '../oauth/roles.js'
import { digest, secretMatches } from '../platform/crypto.js'
import { refusalsOf } from '../storage/activity.js'
import {
  type ApprovalOutcomes,
  approvalOutcomesOf,
  pendingApprovals,
} from '../storage/approvals.js'
import type { User } from '../storage/users.js'
import { accountPage, type ConnectionRow } from '../views/account-page.js'
import { accountActivity } from './account-activity.js'
import { mayDecide } from './approval-routes.js'
import { accountCsrf, currentSession, logoutCsrf, redirect, sendPage } from './browser.js'
import type { RouteModule } from './deps.js'

const CAN_SEE_ALL = new Set(['owner', 'admin'])

function minutes(ms: number): string {
  return `${new Date(ms).toISOString().replace('T', ' ').slice(0, 16)} UTC`
}

/**
 * Why `viewer` may not revoke the connected apps of a person holding `role`, or undefined
 * when they may: anyone their own; owners and admins other people's, under the members
 * API's rule (an admin never touches an owner).
 */
export function revocationRefusal(
  viewer: User,
  userId: string,
  role: User['role'],
): string | undefined {
  if (userId === viewer.id) return undefined
  if (!CAN_SEE_ALL.has(viewer.role))
    return 'Only owners and admins can revoke other people’s connected apps.'
  const refusal = authorityRefusal(viewer.role, role)
  return refusal && `Not allowed: ${refusal}.`
}

function toRow(
  c: Connection,
  viewer: User,
  refusals: ReadonlyMap<string, { count: number }>,
  outcomes: ReadonlyMap<string, ApprovalOutcomes>,
): ConnectionRow {
  const refusal = revocationRefusal(viewer, c.userId, c.userRole)
  return {
    approvals: {
      declined: c.grantIds.reduce((n, id) => n + (outcomes.get(id)?.declined ?? 0), 0),
      expired: c.grantIds.reduce((n, id) => n + (outcomes.get(id)?.expired ?? 0), 0),
    },
    ...(refusal !== undefined && { refusal }),
    refusedWrites: c.grantIds.reduce((n, id) => n + (refusals.get(id)?.count ?? 0), 0),
    clientId: c.clientId,
    clientName: c.clientName ?? 'Unnamed application',
    selfRegistered: c.clientKind === 'self_registered',
    documentHost: c.clientKind === 'metadata_document' ? new URL(c.clientId).host : undefined,
    grantId: c.installation?.grantId,
    returnsTo: returnHost(c.installation?.redirectUri),
    userId: c.userId,
    person: `${c.userName} <${c.userEmail}>`,
    scopes: c.scopes,
    grantedAt: minutes(c.grantedAt),
    lastUsed: c.lastUsedAt ? minutes(c.lastUsedAt) : 'never',
  }
}

/** `127.0.0.1:49152` for the callback of one installation. */
function returnHost(redirectUri: string | undefined): string | undefined {
  if (redirectUri === undefined) return undefined
  try {
    return new URL(redirectUri).host
  } catch {
    return undefined
  }
}

/** The connected-apps page: see every tool you authorized and revoke any of them. */
export const accountRoutes: RouteModule = {
  register(app, deps) {
    const html = { config: { family: 'html' as const } }

    app.get<{ Querystring: { revoked?: string; app?: unknown; cursor?: unknown } }>(
      '/account',
      html,
      async (request, reply) => {
        const current = await currentSession(request, deps)
        if (!current) return redirect(reply, '/login')
        const { user } = current.session
        const now = deps.clock.now()
        const mine = await listConnections(deps.grants, now, user.id)
        const everyone = CAN_SEE_ALL.has(user.role)
          ? await listConnections(deps.grants, now)
          : undefined
        const grantIds = [...mine, ...(everyone ?? [])].flatMap((c) => c.grantIds)
        const refusals = await refusalsOf(deps.database.db, grantIds)
        const outcomes = await approvalOutcomesOf(deps.database.db, grantIds, now)
        const text = (value: unknown) =>
          typeof value === 'string' && value !== '' ? value : undefined
        const activity = await accountActivity(
          deps,
          user,
          everyone !== undefined,
          text(request.query.app),
          text(request.query.cursor),
        )
        // The person's own requests waiting for a yes (issue 35), each linking to its page.
        const waiting = []
        for (const approval of await pendingApprovals(deps.database.db, now, { userId: user.id }))
          waiting.push({
            id: approval.id,
            appName: (await deps.clients.find(approval.client_id))?.clientName,
            description: approval.description,
            expiresAt: minutes(approval.expires_at),
            yours: mayDecide(approval, user),
          })
        const brand = await deps.school.brand()
        return sendPage(
          reply,
          200,
          accountPage({
            waiting,
            school: brand.name,
            brand,
            userName: user.name,
            userEmail: user.email,
            role: user.role,
            mine: mine.map((c) => toRow(c, user, refusals, outcomes)),
            everyone: everyone?.map((c) => toRow(c, user, refusals, outcomes)),
            activity,
            csrf: accountCsrf(current.token),
            logoutCsrf: logoutCsrf(current.token),
            notice:
              request.query.revoked === '1'
                ? 'Access revoked. Its tokens no longer work.'
                : undefined,
          }),
          brand,
        )
      },
    )

    app.post<{
      Body: { csrf?: unknown; client_id?: unknown; user_id?: unknown; grant_id?: unknown }
    }>('/account/connections/revoke', html, async (request, reply) => {
      const current = await currentSession(request, deps)
      if (!current) return redirect(reply, '/login')
      const form = request.body ?? {}
      const csrf = typeof form.csrf === 'string' ? form.csrf : ''
      if (!secretMatches(csrf, digest(accountCsrf(current.token)))) {
        throw new AuthorizePageError(
          'Form expired',
          'This form is no longer valid. Reload the page and try again.',
          403,
        )
      }
      const { user } = current.session
      const clientId = typeof form.client_id === 'string' ? form.client_id : ''
      const userId =
        typeof form.user_id === 'string' && form.user_id !== '' ? form.user_id : user.id
      if (userId !== user.id) {
        const target = CAN_SEE_ALL.has(user.role) ? await deps.users.findById(userId) : undefined
        const refusal = revocationRefusal(user, userId, target?.role ?? 'student')
        if (refusal) throw new AuthorizePageError('Not allowed', refusal, 403)
      }
      // One installation of a metadata-document tool: only its grant ends, not the others.
      const grantId =
        typeof form.grant_id === 'string' && form.grant_id !== '' ? form.grant_id : undefined
      const ended = await revokeGrants(
        deps.grants,
        { clientId, userId, ...(grantId !== undefined && { grantId }) },
        deps.clock.now(),
      )
      deps.metrics.revoked('account_page', ended)
      request.log.info(
        { event: 'grants_revoked', client_id: clientId, user_id: userId, count: ended },
        'connected app revoked',
      )
      return redirect(reply, '/account?revoked=1')
    })
  },
}
