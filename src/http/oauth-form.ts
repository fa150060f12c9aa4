import type { FastifyReply, FastifyRequest } from 'fastify'
import { OAuthError } from '../oauth/errors.js'

export const FORM = 'application/x-www-form-urlencoded'

/** Form parameters of an OAuth request: each present at most once; empty counts as absent. */
export type FormParams = Readonly<Record<string, string | undefined>>

/**
 * onRequest hook: only a form is an OAuth request here, so JSON is never even parsed.
 * Synchronous (a callback, not a promise): it runs on every token, revocation and
 * introspection request.
 */
export function requireForm(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: (error?: Error) => void,
): void {
  const type = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase()
  if (type !== FORM) done(new OAuthError('invalid_request', `the request must be sent as ${FORM}`))
  else done()
}

/** The form as parameters: a repeated one is refused, an empty one is absent (RFC 6749 §3.1, §3.2). */
export function readForm(body: unknown): FormParams {
  const params: Record<string, string> = {}
  for (const [name, value] of Object.entries((body ?? {}) as Record<string, unknown>)) {
    if (typeof value !== 'string') {
      const shown = /^[a-z_]{1,40}$/.test(name) ? name : 'a parameter'
      throw new OAuthError('invalid_request', `${shown} is given more than once`)
    }
    if (value !== '') params[name] = value
  }
  return params
}
