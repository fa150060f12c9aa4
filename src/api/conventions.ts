import { sha256Base64url } from '../platform/crypto.js'
import { ProblemError } from './problem.js'

/** RFC 3339 UTC, as every timestamp of the API is written. */
export function timestamp(ms: number): string {
  // toISOString always ends in `.sssZ`: cut, not a regular expression (once per timestamp
  // of every record listed; npm run bench, profiled).
  return `${new Date(ms).toISOString().slice(0, -5)}Z`
}

/** A strong ETag over an object's JSON representation. */
export function etagOf(body: unknown): string {
  return etagOfJson(JSON.stringify(body))
}

/** {@link etagOf} of a body already serialised, so a response is serialised only once. */
export function etagOfJson(json: string): string {
  return `"${sha256Base64url(json).slice(0, 27)}"`
}

/** RFC 9110 §13.1.1: a write with If-Match proceeds only when one of its tags is current. */
export function checkIfMatch(header: string | undefined, current: string): void {
  if (header === undefined) return
  const tags = header.split(',').map((t) => t.trim())
  if (tags.includes('*') || tags.includes(current)) return
  throw new ProblemError(412, {
    code: 'precondition_failed',
    title: 'Precondition Failed',
    detail:
      'the resource changed since you read it (If-Match does not match its ETag); read it again and retry',
  })
}

export interface FieldError {
  readonly field: string
  readonly code: string
  readonly message: string
}

/** 422 with a field-level list (RFC 9457 extension member `errors`). */
export function validationFailed(errors: readonly FieldError[]): ProblemError {
  return new ProblemError(422, {
    code: 'validation_failed',
    title: 'Unprocessable Content',
    detail:
      errors.length === 1
        ? (errors[0]?.message ?? 'invalid input')
        : `${errors.length} fields are invalid`,
    errors,
  })
}

/** 409: the record's state refuses the request; `detail` says what to do instead. */
export function conflict(detail: string, errors?: readonly FieldError[]): ProblemError {
  return new ProblemError(409, {
    code: 'conflict',
    title: 'Conflict',
    detail,
    ...(errors && { errors }),
  })
}

/**
 * A JSON write must be sent as JSON: a form or plain text that a parser happened to read is
 * refused with 415, never taken as the object it resembles.
 */
export function requireJsonContent(contentType: string | undefined): void {
  const type = contentType?.split(';')[0]?.trim().toLowerCase()
  if (type === 'application/json') return
  throw new ProblemError(415, {
    code: 'unsupported_media_type',
    title: 'Unsupported Media Type',
    detail: 'send the request body as application/json',
  })
}

/** The body of a JSON write must be an object. */
export function requireObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ProblemError(400, {
      code: 'invalid_request',
      title: 'Bad Request',
      detail: 'the request body must be a JSON object',
    })
  }
  return body as Record<string, unknown>
}

/** 413: a body larger than the operation takes; `detail` names the limit. */
export function payloadTooLarge(detail: string): ProblemError {
  return new ProblemError(413, { code: 'payload_too_large', title: 'Content Too Large', detail })
}
