import { createHash } from 'node:crypto'
import * as cookie from 'cookie'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { AppDeps } from '../app-deps.js'
import { digest } from '../platform/crypto.js'
import type { Session } from '../storage/sessions.js'
import { type Brand, brandLogo, brandStyle } from '../views/layout.js'

/**
 * What the HTML pages share: cookies, the sign-in session, CSRF tokens and the headers every
 * page is sent with.
 */

const TOKEN = /^[a-z]{3,4}_[A-Za-z0-9_-]{43}$/

export interface CookieNames {
  readonly session: string
  readonly browser: string
  readonly secure: boolean
}

/** `__Host-` names and the Secure flag whenever the issuer is https. */
export function cookieNames(issuer: string): CookieNames {
  const secure = issuer.startsWith('https:')
  return {
    session: secure ? '__Host-portico_session' : 'portico_session',
    browser: secure ? '__Host-portico_browser' : 'portico_browser',
    secure,
  }
}

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie
  if (!header) return undefined
  const value = cookie.parse(header)[name]
  return value !== undefined && TOKEN.test(value) ? value : undefined
}

export function setCookie(
  reply: FastifyReply,
  names: CookieNames,
  name: string,
  value: string,
  maxAgeSeconds?: number,
): void {
  const serialized = cookie.serialize(name, value, {
    httpOnly: true,
    sameSite: 'lax',
    secure: names.secure,
    path: '/',
    ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }),
  })
  void reply.header('set-cookie', [...cookiesOf(reply), serialized])
}

export function clearCookie(reply: FastifyReply, names: CookieNames, name: string): void {
  setCookie(reply, names, name, '', 0)
}

function cookiesOf(reply: FastifyReply): string[] {
  const existing = reply.getHeader('set-cookie')
  if (existing === undefined) return []
  return Array.isArray(existing) ? existing.map(String) : [String(existing)]
}

/**
 * The browser token: a random cookie that ties an authorization request and the sign-in
 * form to the browser that opened them. Set when missing.
 */
export function ensureBrowserToken(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: AppDeps,
): string {
  const names = cookieNames(deps.config.issuer)
  const existing = readCookie(request, names.browser)
  if (existing) return existing
  const token = deps.random.token('pbr')
  setCookie(reply, names, names.browser, token)
  return token
}

/** The sign-in form's CSRF token, derived from the browser token it must travel with. */
export function loginCsrf(browserToken: string): string {
  return digest(`login\0${browserToken}`)
}

/** The sign-out form's CSRF token, derived from the session it ends. */
export function logoutCsrf(sessionToken: string): string {
  return digest(`logout\0${sessionToken}`)
}

/** The connected-apps forms' CSRF token, derived from the session. */
export function accountCsrf(sessionToken: string): string {
  return digest(`account\0${sessionToken}`)
}

export interface CurrentSession {
  readonly token: string
  readonly session: Session
}

export async function currentSession(
  request: FastifyRequest,
  deps: AppDeps,
): Promise<CurrentSession | undefined> {
  const token = readCookie(request, cookieNames(deps.config.issuer).session)
  if (!token) return undefined
  const session = await deps.sessions.find(digest(token), deps.clock.now())
  return session && { token, session }
}

/**
 * Headers for every HTML page and browser redirect: no framing, no referrer, no caching. A
 * page with the school's brand also allows exactly its logo's origin and its one inline
 * style rule (by hash), nothing else.
 */
export function pageHeaders(reply: FastifyReply, brand?: Brand): FastifyReply {
  const style = brandStyle(brand)
  const logo = brandLogo(brand)
  const styleSrc = style
    ? `style-src 'self' 'sha256-${createHash('sha256').update(style).digest('base64')}'`
    : "style-src 'self'"
  const imgSrc = logo ? `img-src 'self' data: ${new URL(logo).origin}` : "img-src 'self' data:"
  return reply.headers({
    'content-security-policy': `default-src 'none'; ${styleSrc}; ${imgSrc}; frame-ancestors 'none'; base-uri 'none'`,
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    pragma: 'no-cache',
  })
}

export function sendPage(
  reply: FastifyReply,
  status: number,
  body: string,
  brand?: Brand,
): FastifyReply {
  return pageHeaders(reply, brand).code(status).type('text/html; charset=utf-8').send(body)
}

/** A 303 redirect from a page or form. */
export function redirect(reply: FastifyReply, location: string): FastifyReply {
  return pageHeaders(reply).code(303).header('location', location).send()
}
