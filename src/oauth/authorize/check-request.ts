import type { Client, ClientStore } from '../../storage/clients.js'
import type { ResourceServerStore } from '../../storage/resource-servers.js'
import { OAuthError } from '../errors.js'
import { redirectUriMatches } from '../registration/check-redirect-uri.js'
import { resolveResource } from '../resource.js'
import { isKnownScope, parseScope } from '../scopes.js'
import { AuthorizePageError } from './errors.js'
import { checkState } from './state.js'

/** Parameters as parsed from a query string or form: repeated ones arrive as arrays. */
export type RawParams = Readonly<Record<string, string | readonly string[] | undefined>>

/** A checked authorization request (RFC 6749 §4.1.1, RFC 7636, OIDC Core §3.1.2.1). */
export interface AuthorizationParams {
  readonly clientId: string
  readonly redirectUri: string
  readonly scopes: readonly string[]
  readonly state: string | undefined
  readonly nonce: string | undefined
  readonly codeChallenge: string
  readonly resource: string
  readonly prompt: readonly ('login' | 'consent' | 'none')[]
  readonly maxAge: number | undefined
  readonly loginHint: string | undefined
}

/** Where an error can safely be sent back once client and redirect URI are known good. */
export interface RedirectTarget {
  readonly redirectUri: string
  readonly state: string | undefined
}

export interface CheckDeps {
  /** Finds clients by id, metadata-document URLs included (client-id-metadata/resolve-client.ts). */
  readonly clients: Pick<ClientStore, 'find'>
  readonly resourceServers: ResourceServerStore
  readonly issuer: string
}

const MAX_NONCE = 512
const MAX_LOGIN_HINT = 320
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/

/**
 * Step one: the client exists, `redirect_uri` is given and is one of its registered URIs,
 * and `state` can be returned exactly. Until all hold, every failure is a page; nothing is
 * redirected. `rawState` are the still percent-encoded `state` values of a query string.
 */
export async function checkClientAndRedirect(
  raw: RawParams,
  deps: CheckDeps,
  rawState: readonly string[] = [],
): Promise<{ client: Client; target: RedirectTarget }> {
  const clientId = raw.client_id
  if (clientId === undefined || clientId === '') {
    throw new AuthorizePageError(
      'Unknown application',
      'The request does not say which application is asking (client_id is missing).',
    )
  }
  if (typeof clientId !== 'string')
    throw new AuthorizePageError('Invalid request', 'client_id was given more than once.')
  const client = await deps.clients.find(clientId)
  if (!client)
    throw new AuthorizePageError(
      'Unknown application',
      'No application with this client_id is registered here.',
    )

  const presented = raw.redirect_uri
  if (presented !== undefined && typeof presented !== 'string') {
    throw new AuthorizePageError('Invalid request', 'redirect_uri was given more than once.')
  }
  // OpenID Connect Core §3.1.2.1 requires it, and a loopback client's port varies anyway:
  // never fall back to the registered URI, as RFC 6749 §4.1.1 would allow for a single one.
  if (presented === undefined || presented === '') {
    throw new AuthorizePageError('Invalid request', 'redirect_uri is required.')
  }
  if (!redirectUriMatches(client.redirectUris, presented)) {
    throw new AuthorizePageError(
      'Unregistered redirect URI',
      'The application asked to send the answer to an address it did not register. Nothing was sent.',
    )
  }
  const redirectUri = presented
  const state = checkState(raw.state, rawState)
  return { client, target: { redirectUri, state } }
}

/**
 * Step two: every other parameter. Failures are OAuth errors, sent back to the (now
 * trusted) redirect URI with `state` and `iss`.
 */
export async function checkAuthorizationParams(
  raw: RawParams,
  client: Client,
  target: RedirectTarget,
  deps: CheckDeps,
): Promise<AuthorizationParams> {
  const repeated = Object.entries(raw).find(([, value]) => Array.isArray(value))
  if (repeated)
    throw new OAuthError('invalid_request', `the parameter ${repeated[0]} was given more than once`)
  const param = (name: string): string | undefined => {
    const value = raw[name]
    return typeof value === 'string' && value !== '' ? value : undefined
  }

  if (param('request')) throw new OAuthError('invalid_request', 'request objects are not supported')
  if (param('request_uri')) throw new OAuthError('invalid_request', 'request_uri is not supported')

  const responseType = param('response_type')
  if (responseType === undefined)
    throw new OAuthError('invalid_request', 'response_type is required')
  if (responseType !== 'code' || !client.responseTypes.includes('code')) {
    throw new OAuthError('unsupported_response_type', 'only response_type=code is supported')
  }
  const responseMode = param('response_mode')
  if (responseMode !== undefined && responseMode !== 'query')
    throw new OAuthError('invalid_request', 'only response_mode=query is supported')

  // RFC 7636 §4.3; a missing method is never read as "plain" (RFC 9700 §2.1.1).
  const codeChallenge = param('code_challenge')
  if (codeChallenge === undefined)
    throw new OAuthError('invalid_request', 'code_challenge is required (PKCE with S256)')
  if (!CHALLENGE.test(codeChallenge))
    throw new OAuthError(
      'invalid_request',
      'code_challenge must be the 43-character base64url SHA-256 of the verifier',
    )
  const method = param('code_challenge_method')
  if (method === undefined)
    throw new OAuthError('invalid_request', 'code_challenge_method is required and must be S256')
  if (method !== 'S256')
    throw new OAuthError('invalid_request', 'code_challenge_method must be S256')

  const scopeValue = param('scope')
  const scopes = scopeValue === undefined ? undefined : parseScope(scopeValue)
  if (!scopes || scopes.length === 0)
    throw new OAuthError(
      'invalid_scope',
      'scope is required: name at least one scope from scopes_supported',
    )
  const unknown = scopes.find((s) => !isKnownScope(s))
  if (unknown) throw new OAuthError('invalid_scope', `unknown scope "${unknown.slice(0, 64)}"`)
  // A registration's `scope` (RFC 7591 §2) does not bound what the client may ask for later:
  // anyone may register again with every scope, so the bound would protect nothing, and it
  // would break step-up, where an MCP client asks the same person for a scope its first
  // challenge did not name (MCP authorization, "Scope challenge handling"). What a token
  // carries is decided by the person's consent and role.

  const prompt = (param('prompt') ?? '').split(' ').filter(Boolean)
  if (prompt.some((p) => !['login', 'consent', 'none', 'select_account'].includes(p)))
    throw new OAuthError('invalid_request', 'prompt may be none, login, consent or select_account')
  if (prompt.includes('none') && prompt.length > 1)
    throw new OAuthError('invalid_request', 'prompt=none cannot be combined with other values')

  const maxAgeValue = param('max_age')
  if (maxAgeValue !== undefined && !/^\d{1,9}$/.test(maxAgeValue))
    throw new OAuthError('invalid_request', 'max_age must be a whole number of seconds')

  const nonce = param('nonce')
  if (nonce !== undefined && nonce.length > MAX_NONCE)
    throw new OAuthError('invalid_request', `nonce must be at most ${MAX_NONCE} characters`)
  // Stored with the code and signed into the ID token: printable text only.
  if (nonce !== undefined && /\p{Cc}/u.test(nonce))
    throw new OAuthError('invalid_request', 'nonce must not contain control characters')
  const loginHint = param('login_hint')

  return {
    clientId: client.clientId,
    redirectUri: target.redirectUri,
    scopes,
    state: target.state,
    nonce,
    codeChallenge,
    resource: await resolveResource(param('resource'), deps.issuer, deps.resourceServers),
    prompt: prompt.filter((p): p is 'login' | 'consent' | 'none' => p !== 'select_account'),
    maxAge: maxAgeValue === undefined ? undefined : Number(maxAgeValue),
    loginHint: loginHint && loginHint.length <= MAX_LOGIN_HINT ? loginHint : undefined,
  }
}

/**
 * The redirect carrying an error or a code, always with `iss` (RFC 9207). The redirect URI
 * is kept as registered, and each value is percent-encoded whole (a space as `%20`, never
 * `+`), so that `state` reads back byte for byte with any query decoder.
 */
export function buildRedirect(
  target: RedirectTarget,
  issuer: string,
  fields: Record<string, string>,
): string {
  const pairs = Object.entries(fields)
  if (target.state !== undefined) pairs.push(['state', target.state])
  pairs.push(['iss', issuer])
  const query = pairs
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`)
    .join('&')
  const { redirectUri } = target
  return `${redirectUri}${redirectUri.includes('?') ? '&' : '?'}${query}`
}
