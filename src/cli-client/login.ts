import { createHash, randomBytes } from 'node:crypto'
import { type Arrival, listenForCallback } from './callback.js'
import { discover, type ServerMetadata, serverAddress } from './discovery.js'
import { CliError, jsonBody, oauthErrorText, postForm, send } from './http.js'
import { openBrowser } from './open-browser.js'
import type { Registration, Session, Store } from './store.js'
import { sessionFromTokens } from './tokens.js'

export const DEFAULT_SCOPE = 'openid profile email account:read'

/** How long the person has to sign in and decide. */
const LOGIN_TIMEOUT_MS = 5 * 60_000

export interface LoginOptions {
  readonly server: string
  readonly scope: string
  readonly store: Store
  readonly env: NodeJS.ProcessEnv
  /** Where messages for the person go (stderr), so stdout stays for results. */
  readonly say: (line: string) => void
  /**
   * Identify by this Client ID Metadata Document instead of registering: an https URL
   * whose JSON lists `http://127.0.0.1/callback` (any port) among its redirect URIs.
   */
  readonly clientIdUrl?: string | undefined
}

/**
 * The authorization code flow of a native app (RFC 8252): discovery, a registration
 * remembered per server, the system browser, a loopback callback, `iss` and `state` checks
 * (RFC 9207 §2.4, RFC 6749 §10.12), and the code exchanged with its PKCE verifier (RFC 7636).
 */
export async function login(options: LoginOptions): Promise<Session> {
  const metadata = await discover(serverAddress(options.server))
  const listener = await listenForCallback()
  try {
    const registration =
      options.clientIdUrl === undefined
        ? await ensureRegistration(options, metadata, listener.redirectUri)
        : metadataDocumentClient(options.clientIdUrl, metadata, listener.redirectUri)
    const verifier = randomBytes(32).toString('base64url')
    const state = randomBytes(16).toString('base64url')
    const url = new URL(metadata.authorizationEndpoint)
    for (const [name, value] of Object.entries({
      response_type: 'code',
      client_id: registration.clientId,
      redirect_uri: listener.redirectUri,
      scope: options.scope,
      state,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    })) {
      url.searchParams.set(name, value)
    }
    const waiting = listener.arrival(LOGIN_TIMEOUT_MS)
    options.say(`Opening your browser to sign in at ${metadata.issuer} …`)
    if (await openBrowser(url.href, options.env)) {
      options.say(`If it did not open, visit:\n  ${url.href}`)
    } else {
      options.say(`Could not open a browser. Open this address to sign in:\n  ${url.href}`)
    }
    const arrival = await waiting
    try {
      const code = checkResponse(arrival.params, metadata, state)
      const session = await exchangeCode(options.store, metadata, registration, {
        code,
        redirectUri: listener.redirectUri,
        verifier,
      })
      options.store.saveSession(session)
      arrival.reply('success', 'Logged in', 'portico-cli is signed in. You can close this tab.')
      return session
    } catch (error) {
      replyFailure(arrival, error)
      throw error
    }
  } finally {
    listener.close()
  }
}

/**
 * A client identified by its metadata document URL (draft-ietf-oauth-client-id-metadata-
 * document): nothing is registered or remembered, the URL is the client_id.
 */
function metadataDocumentClient(
  clientIdUrl: string,
  metadata: ServerMetadata,
  redirectUri: string,
): Registration {
  if (!clientIdUrl.startsWith('https://')) {
    throw new CliError(`--client-id-url must be an https URL, got ${JSON.stringify(clientIdUrl)}`)
  }
  if (!metadata.clientIdMetadataDocumentSupported) {
    throw new CliError(
      `${metadata.issuer} does not accept client ID metadata documents (client_id_metadata_document_supported is not true); log in without --client-id-url`,
    )
  }
  return { clientId: clientIdUrl, redirectUri, registeredAt: new Date().toISOString() }
}

/** The client registered at this server earlier, or a new registration (RFC 7591). */
async function ensureRegistration(
  options: LoginOptions,
  metadata: ServerMetadata,
  redirectUri: string,
): Promise<Registration> {
  const known = options.store.registration(metadata.issuer)
  if (known) return known
  if (!metadata.registrationEndpoint) {
    throw new CliError(
      `registration refused: ${metadata.issuer} does not offer self-service registration (no registration_endpoint); ask the school's operator for a client`,
    )
  }
  const response = await send(metadata.registrationEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({
      client_name: 'portico-cli',
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      application_type: 'native',
    }),
  })
  const body = await jsonBody(response)
  if (response.status !== 201 || typeof body?.client_id !== 'string') {
    const retry = response.headers.get('retry-after')
    throw new CliError(
      `registration refused by ${metadata.issuer}: ${oauthErrorText(response, body)}` +
        (retry ? `. Try again in ${retry} seconds.` : ''),
    )
  }
  const registration: Registration = {
    clientId: body.client_id,
    redirectUri,
    registeredAt: new Date().toISOString(),
  }
  options.store.saveRegistration(metadata.issuer, registration)
  options.say(`Registered portico-cli at ${metadata.issuer} as ${registration.clientId}.`)
  return registration
}

/** The code from an authorization response, after its issuer and state are checked. */
function checkResponse(params: URLSearchParams, metadata: ServerMetadata, state: string): string {
  const iss = params.get('iss')
  // RFC 9207 §2.4: compare iss first, before the response is processed any further.
  if (iss === null ? metadata.issParameterSupported : iss !== metadata.issuer) {
    throw new CliError(
      `issuer mismatch: the answer came with iss=${JSON.stringify(iss)}, not ${metadata.issuer}. ` +
        'It may come from another server (a mix-up attack); nothing was stored.',
    )
  }
  if (params.get('state') !== state) {
    throw new CliError(
      'state mismatch: the answer that reached portico-cli does not belong to this login ' +
        '(it may be forged or from an older attempt); nothing was stored. Run login again.',
    )
  }
  const error = params.get('error')
  if (error === 'access_denied') {
    throw new CliError('login cancelled: access was denied in the browser (access_denied)')
  }
  if (error !== null) {
    const description = params.get('error_description')
    throw new CliError(
      `the server refused the login: ${description ? `${description} (${error})` : error}`,
    )
  }
  const code = params.get('code')
  if (!code) throw new CliError('the answer carries neither a code nor an error')
  return code
}

async function exchangeCode(
  store: Store,
  metadata: ServerMetadata,
  registration: Registration,
  grant: { code: string; redirectUri: string; verifier: string },
): Promise<Session> {
  const response = await postForm(metadata.tokenEndpoint, {
    grant_type: 'authorization_code',
    code: grant.code,
    redirect_uri: grant.redirectUri,
    client_id: registration.clientId,
    code_verifier: grant.verifier,
  })
  const body = await jsonBody(response)
  if (!response.ok || !body) {
    const byDocument = registration.clientId.startsWith('https://')
    if (body?.error === 'invalid_client' && !byDocument) store.forgetRegistration(metadata.issuer)
    throw new CliError(
      `the server refused to exchange the code: ${oauthErrorText(response, body)}` +
        (body?.error === 'invalid_client'
          ? byDocument
            ? '. The server could not use the client ID metadata document; check that it is reachable and valid.'
            : '. The registration was forgotten; run login again to register anew.'
          : ''),
    )
  }
  return sessionFromTokens(body, {
    server: metadata.issuer,
    clientId: registration.clientId,
    endpoints: {
      token: metadata.tokenEndpoint,
      userinfo: metadata.userinfoEndpoint,
      revocation: metadata.revocationEndpoint,
    },
  })
}

function replyFailure(arrival: Arrival, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error)
  const cancelled = message.startsWith('login cancelled')
  arrival.reply(
    'failure',
    cancelled ? 'Login cancelled' : 'Login failed',
    `${message.charAt(0).toUpperCase()}${message.slice(1)}. You can close this tab.`,
  )
}
