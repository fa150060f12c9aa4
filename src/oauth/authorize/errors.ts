import { ProblemError } from '../../http/problem.js'

/**
 * A failure shown to the person as a page, never as a redirect: the client or the redirect
 * URI cannot be trusted yet (RFC 6749 §4.1.2.1), or the request can no longer be continued.
 * A ProblemError, so the error handler knows its status and message; on the HTML routes it
 * becomes the error page with this title.
 */
export class AuthorizePageError extends ProblemError {
  override name = 'AuthorizePageError'
  readonly title: string

  constructor(title: string, message: string, status = 400) {
    super(status, {
      code: status === 403 ? 'forbidden' : 'invalid_request',
      title,
      detail: message,
    })
    this.title = title
  }
}
