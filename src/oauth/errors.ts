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
    super(description)
    this.error = error
    this.description = description
    this.status = status
    this.headers = headers
  }

  toJSON(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.error, error_description: this.description }
  }
}
