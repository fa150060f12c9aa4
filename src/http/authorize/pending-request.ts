import { AuthorizePageError } from '../../oauth/authorize/errors.js'

/** How long a person has to sign in and decide. */
export const REQUEST_LIFETIME_MS = 10 * 60_000
/** The form of a pending request's id, checked before it is looked up. */
export const REQUEST_ID = /^par_[A-Za-z0-9_-]{43}$/

export const EXPIRED = new AuthorizePageError(
  'This request has expired',
  'This authorization request has expired or was already answered. Go back to the application and start again.',
)
export const OTHER_BROWSER = new AuthorizePageError(
  'Request not valid here',
  'This authorization request was started in another browser or its form is no longer valid. Go back to the application and start again.',
  403,
)
