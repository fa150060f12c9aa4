import { readFileSync } from 'node:fs'
import { CliError, EXIT, jsonBody, oauthErrorText, postForm } from './http.js'
import type { Store } from './store.js'
import { authorizedFetch, freshSession, requireSession } from './tokens.js'

/** Where output goes: results to stdout, messages for the person to stderr. */
export interface Output {
  readonly print: (text: string) => void
  readonly say: (text: string) => void
}

/** `portico-cli token`: a valid access token, refreshed when needed, for other tools. */
export async function printToken(store: Store, out: Output): Promise<number> {
  out.print((await freshSession(store)).accessToken)
  return EXIT.ok
}

/** `portico-cli whoami`: who the tokens speak for, from userinfo and the API index. */
export async function whoami(store: Store, out: Output): Promise<number> {
  const session = requireSession(store)
  const index = await authorizedFetch(store, `${session.server}/api/v1`, {
    headers: { accept: 'application/json' },
  })
  const body = await jsonBody(index)
  if (!index.ok || !body) throw new CliError(describeFailure(index, body))
  let claims: Record<string, unknown> = {}
  const { userinfo } = session.endpoints
  if (userinfo && session.scope.split(' ').includes('openid')) {
    const response = await authorizedFetch(store, userinfo, {
      headers: { accept: 'application/json' },
    })
    claims = (response.ok ? await jsonBody(response) : undefined) ?? {}
  }
  const current = requireSession(store)
  const caller = (body.caller ?? {}) as Record<string, unknown>
  const school = (body.school ?? {}) as Record<string, unknown>
  const name = [claims.name, claims.email && `<${claims.email}>`].filter(Boolean).join(' ')
  const rows: Array<[string, unknown]> = [
    ['as', name || undefined],
    ['role', caller.role],
    ['subject', claims.sub ?? caller.user_id],
    ['client', current.clientId],
    ['scopes', current.scope],
    ['token', current.expiresAt && `valid for ${minutesLeft(current.expiresAt)}`],
  ]
  out.print(`Logged in to ${current.server}${school.name ? ` (${school.name})` : ''}`)
  for (const [label, value] of rows) {
    if (value !== undefined && value !== '') out.print(`  ${label.padEnd(8)} ${String(value)}`)
  }
  return EXIT.ok
}

function minutesLeft(expiresAt: number): string {
  const seconds = Math.max(0, Math.round((expiresAt - Date.now()) / 1000))
  return seconds < 120 ? `${seconds} more seconds` : `${Math.round(seconds / 60)} more minutes`
}

/**
 * `portico-cli api METHOD PATH [--data JSON]`: calls the API with the access token and
 * prints the JSON answer; an error answer is shown readably and exits 1.
 */
export async function callApi(
  store: Store,
  method: string,
  target: string,
  data: string | undefined,
  out: Output,
): Promise<number> {
  if (!/^[A-Za-z]+$/.test(method))
    throw new CliError(`"${method}" is not an HTTP method`, EXIT.usage)
  const session = requireSession(store)
  const url = resolveTarget(session.server, target)
  const body = data === undefined ? undefined : readData(data)
  const response = await authorizedFetch(store, url, {
    method: method.toUpperCase(),
    headers: {
      accept: 'application/json, application/problem+json',
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    body,
  })
  const text = await response.text()
  let parsed: unknown
  try {
    parsed = text === '' ? undefined : JSON.parse(text)
  } catch {
    parsed = undefined
  }
  if (!response.ok) {
    const object =
      typeof parsed === 'object' && parsed !== null
        ? (parsed as Record<string, unknown>)
        : undefined
    throw new CliError(describeFailure(response, object, text))
  }
  if (parsed !== undefined) out.print(JSON.stringify(parsed, null, 2))
  else if (text !== '') out.print(text)
  return EXIT.ok
}

/** A path of the server, or an absolute URL on it: the token is never sent elsewhere. */
function resolveTarget(server: string, target: string): string {
  if (target.startsWith('/')) return `${server}${target}`
  let url: URL
  try {
    url = new URL(target)
  } catch {
    throw new CliError(
      `the path must start with /, e.g. /api/v1/account; got "${target}"`,
      EXIT.usage,
    )
  }
  if (url.origin !== new URL(server).origin) {
    throw new CliError(
      `refusing to send your token to ${url.origin}: you are logged in to ${server}`,
    )
  }
  return url.href
}

/** `--data`: JSON given inline, `@file`, or `@-` for standard input. */
function readData(data: string): string {
  let text = data
  if (data.startsWith('@')) {
    const file = data.slice(1)
    try {
      text = readFileSync(file === '-' ? 0 : file, 'utf8')
    } catch (error) {
      throw new CliError(`cannot read --data ${data}: ${(error as Error).message}`, EXIT.usage)
    }
  }
  try {
    JSON.parse(text)
  } catch (error) {
    throw new CliError(`--data is not valid JSON: ${(error as Error).message}`, EXIT.usage)
  }
  return text
}

/**
 * An error answer for a person: RFC 9457 problem details (title, detail, each field error,
 * request id) or an OAuth error, else the status line and the start of the body.
 */
export function describeFailure(
  response: Response,
  body: Record<string, unknown> | undefined,
  text = '',
): string {
  const status = `${response.status} ${response.statusText}`.trim()
  if (body && (typeof body.title === 'string' || typeof body.detail === 'string')) {
    const lines = [`${response.status} ${body.title ?? response.statusText}: ${body.detail ?? ''}`]
    const errors = Array.isArray(body.errors) ? body.errors : []
    for (const item of errors as Array<Record<string, unknown>>) {
      const where = item.field ?? item.location ?? ''
      lines.push(`  - ${where ? `${String(where)}: ` : ''}${String(item.message ?? item.code)}`)
    }
    if (typeof body.type === 'string') lines.push(`  type: ${body.type}`)
    const id = body.request_id ?? body.instance
    if (typeof id === 'string') lines.push(`  request id: ${id}`)
    return lines.join('\n')
  }
  if (body && typeof body.error === 'string') return `${status}: ${oauthErrorText(response, body)}`
  return text ? `${status}: ${text.slice(0, 500)}` : status
}

/**
 * `portico-cli logout`: revokes the refresh token (RFC 7009; Portico ends the whole grant)
 * and forgets the tokens. If the server cannot be told, the tokens are kept, so that
 * logging out can be retried; `--local` forgets them without telling the server.
 */
export async function logout(store: Store, local: boolean, out: Output): Promise<number> {
  const session = store.session()
  if (!session) {
    out.say('Not logged in; nothing to do.')
    return EXIT.ok
  }
  if (local) {
    store.forgetSession()
    out.say(`Forgot the tokens for ${session.server} without revoking them.`)
    return EXIT.ok
  }
  const { revocation } = session.endpoints
  if (!revocation) {
    store.forgetSession()
    out.say(`${session.server} offers no revocation; the tokens were forgotten here only.`)
    return EXIT.ok
  }
  const token = session.refreshToken ?? session.accessToken
  let response: Response
  try {
    response = await postForm(revocation, {
      token,
      token_type_hint: session.refreshToken ? 'refresh_token' : 'access_token',
      client_id: session.clientId,
    })
  } catch (error) {
    throw new CliError(
      `${(error as Error).message}\nThe tokens are kept: run logout again later, or logout --local to forget them without revoking.`,
    )
  }
  if (!response.ok) {
    throw new CliError(
      `revocation failed: ${oauthErrorText(response, await jsonBody(response))}. The tokens are kept; logout --local forgets them.`,
    )
  }
  store.forgetSession()
  out.say(`Logged out of ${session.server}: the refresh token was revoked and forgotten.`)
  return EXIT.ok
}
