import type { FastifyReply, FastifyRequest } from 'fastify'
import { isConfirmationLevel } from '../api/approvals/policy.js'
import {
  changeConfirmation,
  policyChangeProblem,
  policyRows,
} from '../api/approvals/policy-settings.js'
import type { AppDeps } from '../app-deps.js'
import { AuthorizePageError } from '../oauth/authorize/errors.js'
import { trustDocument } from '../oauth/client-id-metadata/trust-document.js'
import { revokeGrants } from '../oauth/connections.js'
import { digest, secretMatches } from '../platform/crypto.js'
import { type ActivityAuthor, findApproval, pendingApprovals } from '../storage/approvals.js'
import type { User } from '../storage/users.js'
import { type AppsPageModel, appsPage } from '../views/apps-page.js'
import { accountActivity } from './account-activity.js'
import { revocationRefusal } from './account-page-routes.js'
import { APPROVAL_ID, decideAsApprover, mayDecide } from './approval-routes.js'
import { type CurrentSession, currentSession, logoutCsrf, redirect, sendPage } from './browser.js'
import type { RouteModule } from './deps.js'

const PAGE = '/account/apps'
const MANAGERS = new Set(['owner', 'admin'])

/** The page's forms' CSRF token, derived from the session. */
export const appsCsrf = (sessionToken: string): string => digest(`apps\0${sessionToken}`)

const minutes = (ms: number) => `${new Date(ms).toISOString().replace('T', ' ').slice(0, 16)} UTC`

/** Who a confirmation changed on this page is recorded as: the owner or admin, here. */
const authorOf = (user: User): ActivityAuthor => ({
  user_id: user.id,
  client_id: 'portico-apps-page',
  client_name: 'Apps and agents page',
  grant_id: 'portico-apps-page',
})

/** What the page says after a form, by the `done` query value. */
const NOTICES: Readonly<Record<string, string>> = {
  approved: 'Approved. The app can now repeat its request, and it will run once.',
  refused: 'Refused. Nothing was changed.',
  stale: 'That request was already answered, or it expired. Nothing was changed.',
  revoked: 'Access revoked. Its tokens no longer work.',
  policy: 'Confirmations saved. Each change is in the activity record.',
  unchanged: 'Nothing to save: the confirmations are as they were.',
  trusted: 'Trusted. Its https callbacks are accepted, and its consent page no longer warns.',
  'already-trusted': 'That metadata document was already trusted.',
}

/**
 * The signed-in owner or admin: a visitor goes to sign in and comes back; anyone else gets a
 * 403 page.
 */
async function managerOf(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<CurrentSession | undefined> {
  const current = await currentSession(request, deps)
  if (!current) {
    redirect(reply, `/login?to=${encodeURIComponent(PAGE)}`)
    return undefined
  }
  if (!MANAGERS.has(current.session.user.role))
    throw new AuthorizePageError(
      'Owners and admins only',
      'The Apps and agents page is for the school’s owners and admins. Your own apps are on your account page.',
      403,
    )
  return current
}

/**
 * A form posted to this page, by an owner or admin (else as managerOf answers), refused
 * unless it carries the session's CSRF token.
 */
async function managersForm<Form extends { csrf?: unknown }>(
  deps: AppDeps,
  request: FastifyRequest<{ Body: Form }>,
  reply: FastifyReply,
): Promise<{ readonly current: CurrentSession; readonly form: Partial<Form> } | undefined> {
  const current = await managerOf(deps, request, reply)
  if (!current) return undefined
  const form: Partial<Form> = request.body ?? {}
  const csrf = typeof form.csrf === 'string' ? form.csrf : ''
  if (!secretMatches(csrf, digest(appsCsrf(current.token))))
    throw new AuthorizePageError(
      'Form expired',
      'This form is no longer valid. Reload the page and try again.',
      403,
    )
  return { current, form }
}

async function nameOf(deps: AppDeps, userId: string): Promise<string> {
  const person = await deps.users.findById(userId)
  return person ? `${person.name} <${person.email}>` : 'A former member'
}

async function sendAppsPage(
  deps: AppDeps,
  reply: FastifyReply,
  current: CurrentSession,
  status: number,
  extra: Pick<AppsPageModel, 'notice' | 'error' | 'trustUrl'>,
) {
  const { user } = current.session
  const now = deps.clock.now()
  const db = deps.database.db
  const clientNames = new Map<string, string | undefined>()
  const clientName = async (clientId: string) => {
    if (!clientNames.has(clientId))
      clientNames.set(clientId, (await deps.clients.find(clientId))?.clientName)
    return clientNames.get(clientId)
  }
  const waiting = []
  for (const approval of await pendingApprovals(db, now))
    waiting.push({
      id: approval.id,
      appName: await clientName(approval.client_id),
      person: await nameOf(deps, approval.user_id),
      operation: approval.operation,
      description: approval.description,
      level: approval.level === 'owner' ? ('owner' as const) : ('person' as const),
      expiresAt: minutes(approval.expires_at),
      mayDecide: mayDecide(approval, user),
    })
  const trusted = await deps.trustedClientDocuments.list()
  const trustedUrls = new Set(trusted.map((t) => t.url))
  const grants = (await deps.grants.listLive(now)).map((g) => {
    const refusal = revocationRefusal(user, g.userId, g.userRole)
    return {
      grantId: g.id,
      appName: g.clientName,
      kind: g.clientKind,
      clientId: g.clientId,
      trusted: trustedUrls.has(g.clientId),
      person: `${g.userName} <${g.userEmail}>`,
      scopes: g.scope.split(' '),
      grantedAt: minutes(g.createdAt),
      lastUsed: g.lastUsedAt ? minutes(g.lastUsedAt) : 'never',
      ...(refusal !== undefined && { refusal }),
    }
  })
  const integrations = (await deps.clients.list('integration')).map((c) => ({
    clientId: c.clientId,
    name: c.clientName,
    redirectUris: c.redirectUris,
  }))
  const activity = await accountActivity(deps, user, true, undefined, undefined)
  const brand = await deps.school.brand()
  return sendPage(
    reply,
    status,
    appsPage({
      school: brand.name,
      brand,
      userName: user.name,
      userEmail: user.email,
      waiting,
      grants,
      policy: await policyRows(db),
      trusted: trusted.map((t) => ({ url: t.url, since: minutes(t.createdAt) })),
      integrations,
      activity: activity.entries,
      csrf: appsCsrf(current.token),
      logoutCsrf: logoutCsrf(current.token),
      ...extra,
    }),
    brand,
  )
}

const done = (reply: FastifyReply, what: string, section: string) =>
  redirect(reply, `${PAGE}?done=${what}#${section}`)

/**
 * The Apps and agents page (issue 35), `/account/apps`, for owners and admins: approve or
 * refuse the requests waiting for a yes (the approval page's rule and function), revoke a
 * grant (as `portico grants revoke`), set the confirmations (as `portico approvals policy`,
 * recorded), trust a metadata document (as `portico integrations trust`), and read what the
 * apps changed. Server-rendered plain forms, each with the session's CSRF token; framed
 * nowhere (pageHeaders).
 */
export const appsPageRoutes: RouteModule = {
  register(app, deps) {
    const html = { config: { family: 'html' as const } }

    app.get<{ Querystring: { done?: unknown } }>(PAGE, html, async (request, reply) => {
      const current = await managerOf(deps, request, reply)
      if (!current) return reply
      const what = request.query.done
      const notice = typeof what === 'string' ? NOTICES[what] : undefined
      return sendAppsPage(deps, reply, current, 200, notice ? { notice } : {})
    })

    app.post<{ Params: { id: string }; Body: { csrf?: unknown; decision?: unknown } }>(
      `${PAGE}/approvals/:id`,
      html,
      async (request, reply) => {
        const posted = await managersForm(deps, request, reply)
        if (!posted) return reply
        const { current, form } = posted
        const { id } = request.params
        const approval = APPROVAL_ID.test(id) ? await findApproval(deps.database.db, id) : undefined
        if (!approval)
          throw new AuthorizePageError(
            'Request not found',
            'There is no request waiting for approval at this address.',
            404,
          )
        const decided = await decideAsApprover(
          deps,
          request,
          approval,
          current.session.user,
          form.decision,
        )
        return done(
          reply,
          decided ? (form.decision === 'approve' ? 'approved' : 'refused') : 'stale',
          'waiting',
        )
      },
    )

    app.post<{ Body: { csrf?: unknown; grant_id?: unknown } }>(
      `${PAGE}/revoke`,
      html,
      async (request, reply) => {
        const posted = await managersForm(deps, request, reply)
        if (!posted) return reply
        const { current, form } = posted
        const { user } = current.session
        const now = deps.clock.now()
        const grantId = typeof form.grant_id === 'string' ? form.grant_id : ''
        const grant = (await deps.grants.listLive(now)).find((g) => g.id === grantId)
        if (!grant) return done(reply, 'revoked', 'connected') // ended already
        const refusal = revocationRefusal(user, grant.userId, grant.userRole)
        if (refusal) throw new AuthorizePageError('Not allowed', refusal, 403)
        const ended = await revokeGrants(
          deps.grants,
          { grantId, clientId: grant.clientId, userId: grant.userId },
          now,
        )
        deps.metrics.revoked('account_page', ended)
        request.log.info(
          {
            event: 'grants_revoked',
            client_id: grant.clientId,
            user_id: grant.userId,
            grant_id: grantId,
            by: user.id,
            count: ended,
          },
          'grant revoked on the apps page',
        )
        return done(reply, 'revoked', 'connected')
      },
    )

    app.post<{ Body: Record<string, unknown> }>(`${PAGE}/policy`, html, async (request, reply) => {
      const posted = await managersForm(deps, request, reply)
      if (!posted) return reply
      const { current, form } = posted
      const db = deps.database.db
      const wanted: { operation: string; level: string }[] = []
      for (const row of await policyRows(db)) {
        const level = form[`level:${row.operation}`]
        if (level === undefined) continue
        const text = typeof level === 'string' ? level : ''
        const problem = policyChangeProblem(row.operation, text)
        if (problem)
          throw new AuthorizePageError('Not saved', `${problem}. Nothing was changed.`, 400)
        wanted.push({ operation: row.operation, level: text })
      }
      let changed = 0
      for (const { operation, level } of wanted) {
        const change = await changeConfirmation(db, {
          id: () => deps.random.id('act'),
          operation,
          level: isConfirmationLevel(level) ? level : 'default',
          now: deps.clock.now(),
          by: authorOf(current.session.user),
        })
        if (change.changed) {
          changed += 1
          request.log.info(
            {
              event: 'approval_policy_changed',
              operation,
              before: change.before ?? 'default',
              after: change.after ?? 'default',
              by: current.session.user.id,
            },
            'confirmation changed on the apps page',
          )
        }
      }
      return done(reply, changed > 0 ? 'policy' : 'unchanged', 'policy')
    })

    app.post<{ Body: { csrf?: unknown; url?: unknown } }>(
      `${PAGE}/trust`,
      html,
      async (request, reply) => {
        const posted = await managersForm(deps, request, reply)
        if (!posted) return reply
        const { current, form } = posted
        const url = typeof form.url === 'string' ? form.url : ''
        const outcome = await trustDocument(deps.trustedClientDocuments, url, deps.clock.now())
        if (outcome.problem !== undefined)
          return sendAppsPage(deps, reply, current, 400, {
            error: `Not trusted: ${outcome.problem}.`,
            trustUrl: url.slice(0, 2048),
          })
        request.log.info(
          { event: 'client_document_trusted', url, by: current.session.user.id },
          'metadata document trusted on the apps page',
        )
        return done(reply, outcome.added ? 'trusted' : 'already-trusted', 'integrations')
      },
    )
  },
}
