/**
 * A failure shown to the person as a page, never as a redirect: the client or the redirect
 * URI cannot be trusted yet (RFC 6749 §4.1.2.1), or the request can no longer be continued.
 */
export class AuthorizePageError extends Error {
  override name = 'AuthorizePageError'
  readonly title: string
  readonly status: number

  constructor(title: string, message: string, status = 400) {
    super(message)
    this.title = title
    this.status = status
  }
}
