/** Error codes Portico answers on its OAuth endpoints (RFC 6749 §5.2, RFC 7591 §3.2.2, …). */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'login_required'
  | 'consent_required'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'invalid_token'
  | 'insufficient_scope'
  | 'slow_down'
  | 'temporarily_unavailable'
  | 'server_error'

/**
 * A failure the client is told about, as `{"error", "error_description"}` JSON.
 * The description is written for the developer of the client and never carries internals.
 */
export class OAuthError extends Error {
  override name = 'OAuthError'
  readonly error: OAuthErrorCode
  readonly description: string
  readonly status: number
  readonly headers: Readonly<Record<string, string>>

  constructor(
    error: OAuthErrorCode,
    description: string,
    status = 400,
    headers: Readonly<Record<string, string>> = {},
  ) {
    const printable = errorDescription(description)
    super(printable)
    this.error = error
    this.description = printable
    this.status = status
    this.headers = headers
  }

  toJSON(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.error, error_description: this.description }
  }
}

/**
 * RFC 6749 §4.1.2.1 and §5.2: `error_description` holds only %x20-21 / %x23-5B / %x5D-7E,
 * so a client that shows it cannot be broken by a quote or a backslash from the request.
 * Quotes become apostrophes, `§` the word section; anything else outside the set becomes `?`.
 */
export function errorDescription(text: string): string {
  return text
    .replace(/[\u0022\u2018\u2019\u201c\u201d]/g, "'")
    .replace(/\u2026/g, '...')
    .replace(/\u00a7/g, 'section ')
    .replace(/[\u2013\u2014]/g, '-')
    .replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, '?')
}
