import { CliError, isLoopback, jsonBody, send } from './http.js'

/** What portico-cli uses of the authorization server metadata (RFC 8414 §2). */
export interface ServerMetadata {
  readonly issuer: string
  readonly authorizationEndpoint: string
  readonly tokenEndpoint: string
  readonly registrationEndpoint: string | undefined
  readonly userinfoEndpoint: string | undefined
  readonly revocationEndpoint: string | undefined
  /** RFC 9207 §3: the server puts `iss` in every authorization response. */
  readonly issParameterSupported: boolean
  /** The server accepts an https client_id naming a Client ID Metadata Document. */
  readonly clientIdMetadataDocumentSupported: boolean
}

/**
 * The server address as the person typed it, checked and written as an issuer: http(s),
 * plain http only on a loopback host (tokens must not cross a network in clear), no query,
 * fragment or user-info, no trailing slash.
 */
export function serverAddress(input: string): string {
  let url: URL
  try {
    url = new URL(input)
  } catch {
    throw new CliError(`--server must be a URL such as https://school.example.com, got "${input}"`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new CliError(`--server must be an https URL, got "${input}"`)
  }
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
    throw new CliError(
      `refusing plain http to ${url.host}: tokens would travel unencrypted. Use https (http is only for 127.0.0.1 and localhost).`,
    )
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new CliError('--server must not carry a query, a fragment or user information')
  }
  return url.href.replace(/\/$/, '')
}

/**
 * Fetches and checks the metadata: the issuer it states must be the address asked
 * (RFC 8414 §3.3), and the server must do what portico-cli relies on: the code flow with
 * PKCE S256 (RFC 7636), and endpoints on the same footing as the issuer.
 */
export async function discover(server: string): Promise<ServerMetadata> {
  const issuer = new URL(server)
  // RFC 8414 §3.1: the well-known segment goes between the host and any path.
  const path = issuer.pathname === '/' ? '' : issuer.pathname
  const url = `${issuer.origin}/.well-known/oauth-authorization-server${path}`
  const response = await send(url, { headers: { accept: 'application/json' } })
  const body = response.ok ? await jsonBody(response) : undefined
  if (!body) {
    throw new CliError(
      `${server} did not answer with OAuth metadata (${url} gave HTTP ${response.status}); is this a Portico server?`,
    )
  }
  if (body.issuer !== server) {
    throw new CliError(
      `issuer mismatch: ${server} says its issuer is ${JSON.stringify(body.issuer)}. ` +
        'Use the address the server calls itself (RFC 8414 §3.3); nothing was sent to it.',
    )
  }
  const endpoint = (name: string, required: boolean): string | undefined => {
    const value = body[name]
    if (value === undefined && !required) return undefined
    if (typeof value !== 'string') throw new CliError(`${server}'s metadata has no ${name}`)
    const url = new URL(value)
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname))) {
      throw new CliError(`${server}'s ${name} is not an https URL: ${value}`)
    }
    return value
  }
  const methods = body.code_challenge_methods_supported
  if (!Array.isArray(methods) || !methods.includes('S256')) {
    throw new CliError(`${server} does not support PKCE with S256, which portico-cli requires`)
  }
  return {
    issuer: server,
    authorizationEndpoint: endpoint('authorization_endpoint', true) ?? '',
    tokenEndpoint: endpoint('token_endpoint', true) ?? '',
    registrationEndpoint: endpoint('registration_endpoint', false),
    userinfoEndpoint: endpoint('userinfo_endpoint', false),
    revocationEndpoint: endpoint('revocation_endpoint', false),
    issParameterSupported: body.authorization_response_iss_parameter_supported === true,
    clientIdMetadataDocumentSupported: body.client_id_metadata_document_supported === true,
  }
}
