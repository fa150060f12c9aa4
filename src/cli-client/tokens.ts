import { CliError, EXIT, jsonBody, oauthErrorText, postForm, send } from './http.js'
import type { Session, Store } from './store.js'

/** Refresh this long before expiry at most (a quarter of the lifetime for short ones). */
const MAX_MARGIN_MS = 30_000

/** A session from a token response (RFC 6749 §5.1), checked for what the CLI relies on. */
export function sessionFromTokens(
  body: Record<string, unknown>,
  context: Pick<Session, 'server' | 'clientId' | 'endpoints'> & { previous?: Session },
): Session {
  const { access_token, token_type, expires_in, scope, refresh_token } = body
  if (typeof access_token !== 'string' || access_token === '') {
    throw new CliError('the token response has no access_token')
  }
  if (typeof token_type !== 'string' || token_type.toLowerCase() !== 'bearer') {
    throw new CliError(`unsupported token_type ${JSON.stringify(token_type)}; expected Bearer`)
  }
  const lifetime = typeof expires_in === 'number' && expires_in > 0 ? expires_in : undefined
  return {
    server: context.server,
    clientId: context.clientId,
    // RFC 6749 §5.1: scope may be omitted when it is the one requested (or held before).
    scope: typeof scope === 'string' ? scope : (context.previous?.scope ?? ''),
    accessToken: access_token,
    // §6: a refresh response without a new refresh token leaves the old one in force.
    refreshToken:
      typeof refresh_token === 'string' ? refresh_token : context.previous?.refreshToken,
    expiresAt: lifetime === undefined ? undefined : Date.now() + lifetime * 1000,
    expiresIn: lifetime,
    endpoints: context.endpoints,
  }
}

/** The stored session, or "not logged in". */
export function requireSession(store: Store): Session {
  const session = store.session()
  if (!session) {
    throw new CliError('not logged in. Run: portico-cli login --server <url>', EXIT.loginNeeded)
  }
  return session
}

function needsRefresh(session: Session): boolean {
  if (session.expiresAt === undefined) return false
  const margin = Math.min(MAX_MARGIN_MS, ((session.expiresIn ?? 0) * 1000) / 4)
  return Date.now() >= session.expiresAt - margin
}

/**
 * A session whose access token is valid for a while yet: refreshed (and rotated, as
 * Portico does) when it is about to expire, or when `force` says the server refused it.
 */
export async function freshSession(store: Store, force = false): Promise<Session> {
  const session = requireSession(store)
  if (!force && !needsRefresh(session)) return session
  return refresh(store, session)
}

async function refresh(store: Store, session: Session): Promise<Session> {
  const again = () =>
    `Log in again: portico-cli login --server ${session.server}${session.scope ? ` --scope '${session.scope}'` : ''}`
  if (!session.refreshToken) {
    store.forgetSession()
    throw new CliError(
      `the access token expired and there is no refresh token. ${again()}`,
      EXIT.loginNeeded,
    )
  }
  const response = await postForm(session.endpoints.token, {
    grant_type: 'refresh_token',
    refresh_token: session.refreshToken,
    client_id: session.clientId,
  })
  const body = await jsonBody(response)
  if (response.ok && body) {
    const next = sessionFromTokens(body, { ...session, previous: session })
    store.saveSession(next)
    return next
  }
  if (body?.error === 'invalid_grant') {
    // Another portico-cli process may have rotated the token a moment ago (Portico answers
    // the loser of two concurrent refreshes invalid_grant): use the winner's tokens.
    const winner = await rotatedElsewhere(store, session)
    if (winner) return needsRefresh(winner) ? refresh(store, winner) : winner
    store.forgetSession()
    throw new CliError(
      `your sign-in at ${session.server} has ended: the refresh token was revoked ` +
        `(from the account page, by logging out elsewhere, or by an administrator) or has expired. ${again()}`,
      EXIT.loginNeeded,
    )
  }
  if (body?.error === 'invalid_client') {
    store.forgetSession()
    store.forgetRegistration(session.server)
    throw new CliError(
      `${session.server} no longer knows portico-cli's registration (${oauthErrorText(response, body)}). ${again()}`,
      EXIT.loginNeeded,
    )
  }
  throw new CliError(`refreshing the access token failed: ${oauthErrorText(response, body)}`)
}

/** The session another process stored after rotating this one's refresh token, if any. */
async function rotatedElsewhere(store: Store, session: Session): Promise<Session | undefined> {
  for (let attempt = 0; attempt < 4; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 400))
    const current = store.session()
    if (current && current.refreshToken !== session.refreshToken) return current
  }
  return undefined
}

/**
 * Calls the server with the access token, refreshing first when it is about to expire and
 * once more when the server answers 401 `invalid_token` (revoked or expired early).
 */
export async function authorizedFetch(
  store: Store,
  url: string,
  init: RequestInit = {},
): Promise<Response> {
  const call = (session: Session) => {
    const headers = new Headers(init.headers)
    headers.set('authorization', `Bearer ${session.accessToken}`)
    return send(url, { ...init, headers })
  }
  const response = await call(await freshSession(store))
  if (
    response.status !== 401 ||
    !/invalid_token/.test(response.headers.get('www-authenticate') ?? '')
  ) {
    return response
  }
  await response.body?.cancel()
  return call(await freshSession(store, true))
}
