import type { FastifyReply } from 'fastify'
import type { AppDeps } from '../app-deps.js'
import { AuthorizePageError } from '../oauth/authorize/errors.js'
import { digest, secretMatches } from '../platform/crypto.js'
import { verifyPassword } from '../platform/passwords.js'
import type { Client } from '../storage/clients.js'
import { isActive } from '../storage/users.js'
import { loginPage } from '../views/login-page.js'
import { STYLESHEET } from '../views/stylesheet.js'
import type { UnverifiedTool } from '../views/unverified-tool-warning.js'
import { APPROVAL_ID } from './approval-routes.js'
import {
  clearCookie,
  cookieNames,
  currentSession,
  ensureBrowserToken,
  loginCsrf,
  logoutCsrf,
  readCookie,
  redirect,
  sendPage,
  setCookie,
} from './browser.js'
import type { RouteModule } from './deps.js'
import { knownDevice, rememberDevice } from './device-cookie.js'
import { reserveSignIn } from './sign-in-throttle.js'

const REQUEST_ID = /^par_[A-Za-z0-9_-]{43}$/

interface LoginForm {
  email?: unknown
  password?: unknown
  csrf?: unknown
  request?: unknown
  approval?: unknown
  to?: unknown
}

/** The approval page a sign-in returns to (issue 35), when the value is an approval's id. */
const approvalToReturnTo = (value: unknown): string | undefined =>
  typeof value === 'string' && APPROVAL_ID.test(value) ? value : undefined

/** The signed-in pages a sign-in may return to by name (`to`); nothing else is followed. */
const PAGES_TO_RETURN_TO: ReadonlySet<string> = new Set(['/account/apps'])
const pageToReturnTo = (value: unknown): string | undefined =>
  typeof value === 'string' && PAGES_TO_RETURN_TO.has(value) ? value : undefined

/** Where a sign-in goes back to: a pending authorization, an approval, or a named page. */
interface ReturnTo {
  readonly pending: Awaited<ReturnType<typeof pendingRequest>>
  readonly approval: string | undefined
  readonly to: string | undefined
}

/** The return target a sign-in page's query or form names, each part checked. */
async function returnOf(
  deps: AppDeps,
  fields: { readonly request?: unknown; readonly approval?: unknown; readonly to?: unknown },
): Promise<ReturnTo> {
  return {
    pending: await pendingRequest(
      deps,
      typeof fields.request === 'string' ? fields.request : undefined,
    ),
    approval: approvalToReturnTo(fields.approval),
    to: pageToReturnTo(fields.to),
  }
}

/** The sign-in page, shown first or again with an error. */
function sendLoginPage(
  reply: FastifyReply,
  status: number,
  brand: Awaited<ReturnType<AppDeps['school']['brand']>>,
  browser: string,
  back: ReturnTo,
  email: string | undefined,
  error?: string,
) {
  return sendPage(
    reply,
    status,
    loginPage({
      school: brand.name,
      brand,
      csrf: loginCsrf(browser),
      request: back.pending?.id,
      approval: back.approval,
      to: back.to,
      clientName: back.pending?.clientName,
      unverified: back.pending?.unverified,
      email,
      ...(error !== undefined && { error }),
    }),
    brand,
  )
}

/** Sign-in and sign-out pages, the signed-in page, and the stylesheet. */
export const loginRoutes: RouteModule = {
  register(app, deps) {
    const names = cookieNames(deps.config.issuer)
    const html = { config: { family: 'html' as const } }

    app.get('/assets/portico.css', async (_request, reply) =>
      reply
        .header('cache-control', 'public, max-age=3600')
        .type('text/css; charset=utf-8')
        .send(STYLESHEET),
    )

    app.get('/', html, async (request, reply) =>
      redirect(reply, (await currentSession(request, deps)) ? '/account' : '/login'),
    )

    app.get<{ Querystring: { request?: string; approval?: string; to?: string } }>(
      '/login',
      html,
      async (request, reply) => {
        const browser = ensureBrowserToken(request, reply, deps)
        const back = await returnOf(deps, request.query)
        const brand = await deps.school.brand()
        return sendLoginPage(reply, 200, brand, browser, back, back.pending?.loginHint)
      },
    )

    app.post<{ Body: LoginForm }>('/login', html, async (request, reply) => {
      const form = request.body ?? {}
      const browser = readCookie(request, names.browser)
      const csrf = typeof form.csrf === 'string' ? form.csrf : ''
      if (!browser || !secretMatches(csrf, digest(loginCsrf(browser)))) {
        throw new AuthorizePageError(
          'Sign-in form expired',
          'This sign-in form is no longer valid. Reload the sign-in page and try again.',
          403,
        )
      }
      const email = typeof form.email === 'string' ? form.email.trim() : ''
      const password = typeof form.password === 'string' ? form.password : ''
      const back = await returnOf(deps, form)
      const { pending, approval, to } = back
      const brand = await deps.school.brand()
      const again = (status: number, error: string) =>
        sendLoginPage(reply, status, brand, browser, back, email, error)

      if (email === '' || password === '' || email.length > 320)
        return again(400, 'Enter your e-mail address and password.')
      const now = deps.clock.now()
      const account = email.toLowerCase()
      const throttle = await reserveSignIn(
        deps.rateLimiter,
        {
          account,
          address: request.ip,
          device: knownDevice(request, names, deps.deviceCookieKey, account),
        },
        now,
      )
      if (!throttle.allowed) {
        const minutes = Math.ceil(throttle.retryAfter / 60)
        void reply.header('retry-after', String(throttle.retryAfter))
        deps.metrics.signInFailed('throttled')
        return again(
          429,
          `Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
        )
      }
      const credentials = await deps.users.findCredentials(email)
      const valid = await verifyPassword(password, credentials?.passwordHash)
      if (!valid || !credentials || !isActive(credentials.user)) {
        // The units reserved stay spent: this was a failure.
        request.log.info({ event: 'sign_in_failed' }, 'sign-in failed')
        deps.metrics.signInFailed('credentials')
        return again(401, 'The e-mail address or password is not correct.')
      }
      await throttle.reservation.refund()
      rememberDevice(request, reply, names, deps.deviceCookieKey, account)

      // A fresh session id at every sign-in: a session fixed from outside never becomes valid.
      const previous = readCookie(request, names.session)
      if (previous) await deps.sessions.delete(digest(previous))
      const token = deps.random.token('pss')
      await deps.sessions.insert({
        idDigest: digest(token),
        userId: credentials.user.id,
        authTime: now,
        now,
        expiresAt: now + deps.config.lifetimes.session * 1000,
      })
      // A password change or suspension that landed while the password was being verified
      // deleted every session before this one existed: read the account again, and a session
      // made with a password that is no longer the account's does not survive.
      const current = await deps.users.findCredentials(email)
      if (
        !current ||
        current.passwordHash !== credentials.passwordHash ||
        !isActive(current.user)
      ) {
        await deps.sessions.delete(digest(token))
        request.log.info({ event: 'sign_in_failed' }, 'sign-in failed: account changed meanwhile')
        deps.metrics.signInFailed('credentials')
        return again(401, 'The e-mail address or password is not correct.')
      }
      setCookie(reply, names, names.session, token)
      request.log.info({ event: 'sign_in', user_id: credentials.user.id }, 'signed in')
      return redirect(
        reply,
        pending
          ? `/oauth/authorize/continue?request=${encodeURIComponent(pending.id)}`
          : approval
            ? `/approvals/${encodeURIComponent(approval)}`
            : (to ?? '/account'),
      )
    })

    app.post<{ Body: { csrf?: unknown } }>('/logout', html, async (request, reply) => {
      const current = await currentSession(request, deps)
      const csrf = typeof request.body?.csrf === 'string' ? request.body.csrf : ''
      if (current) {
        if (!secretMatches(csrf, digest(logoutCsrf(current.token)))) {
          throw new AuthorizePageError(
            'Sign-out form expired',
            'This sign-out form is no longer valid. Reload the page and try again.',
            403,
          )
        }
        await deps.sessions.delete(current.session.idDigest)
      }
      clearCookie(reply, names, names.session)
      return redirect(reply, '/login')
    })
  },
}

/** The pending authorization request a sign-in continues, if the id names a live one. */
async function pendingRequest(
  deps: AppDeps,
  id: string | undefined,
): Promise<
  | {
      id: string
      clientName: string | undefined
      unverified: UnverifiedTool | undefined
      loginHint: string | undefined
    }
  | undefined
> {
  if (!id || !REQUEST_ID.test(id)) return undefined
  const row = await deps.authorizationRequests.find(digest(id))
  if (!row || row.consumed_at !== null || row.expires_at <= deps.clock.now()) return undefined
  const client = await deps.clients.find(row.client_id)
  const params = JSON.parse(row.params) as { loginHint?: string }
  return {
    id,
    clientName: client?.clientName ?? 'An unnamed application',
    unverified: await unverifiedTool(deps, client),
    loginHint: params.loginHint,
  }
}

/** The same judgement the consent page makes: self-registered, or a document not trusted. */
async function unverifiedTool(
  deps: AppDeps,
  client: Client | undefined,
): Promise<UnverifiedTool | undefined> {
  if (client?.kind === 'self_registered') return 'self_registered'
  if (client?.kind !== 'metadata_document') return undefined
  return (await deps.trustedClientDocuments.isTrusted(client.clientId))
    ? undefined
    : 'metadata_document'
}
