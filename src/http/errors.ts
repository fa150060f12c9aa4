import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { ProblemError, problemBody } from '../api/problem.js'
import { AuthorizePageError } from '../oauth/authorize/errors.js'
import { OAuthError, type OAuthErrorCode } from '../oauth/errors.js'
import type { SchoolStore } from '../storage/school.js'
import { isUnavailable, UNAVAILABLE_RETRY_AFTER } from '../storage/unavailable.js'
import { errorPage } from '../views/error-page.js'
import type { Brand } from '../views/layout.js'
import { sendPage } from './browser.js'

/**
 * The one place errors become responses. OAuth routes answer RFC 6749 §5.2 JSON, the rest
 * RFC 9457 problem details. An unexpected error is logged with its cause and answered with
 * a generic message and the request id, never with its message or stack.
 */
export function handleError(
  error: FastifyError | Error,
  request: FastifyRequest,
  reply: FastifyReply,
  school?: Pick<SchoolStore, 'brand'>,
): Promise<FastifyReply> | FastifyReply {
  const known = classify(error)
  if (!known) request.log.error({ err: error }, 'unexpected error')
  else if (known.status >= 500) request.log.warn({ err: error }, 'request failed')
  const failure: Failure = known ?? {
    status: 500,
    code: 'server_error',
    message: `an unexpected error occurred; quote request id ${request.id}`,
  }
  const headers = { 'cache-control': 'no-store', ...failure.headers }
  void reply.code(failure.status).headers(headers)

  const family = request.routeOptions.config?.family ?? 'problem'
  if (family === 'html') {
    const title =
      error instanceof AuthorizePageError
        ? error.title
        : failure.status === 503
          ? 'Temporarily unavailable'
          : failure.status >= 500
            ? 'Something went wrong'
            : 'Invalid request'
    const page = (brand?: Brand) =>
      sendPage(
        reply,
        failure.status,
        errorPage({ title, message: failure.message, requestId: request.id, brand }),
        brand,
      )
    // The school's header when the database can say what it is; a plain one when it cannot
    // (the error may be that very database being unavailable).
    return school ? school.brand().then(page, () => page()) : page()
  }
  if (family === 'oauth') {
    const body = new OAuthError(oauthCode(error, failure), failure.message, failure.status).toJSON()
    return reply.type('application/json').send(body)
  }
  const fields =
    error instanceof ProblemError
      ? error.fields
      : { code: failure.code, title: titleFor(failure.status), detail: failure.message }
  return reply
    .type('application/problem+json')
    .send(problemBody(failure.status, fields, request.id))
}

function oauthCode(error: Error, failure: Failure): OAuthErrorCode {
  if (error instanceof OAuthError) return error.error
  if (failure.status === 503) return 'temporarily_unavailable'
  return failure.status >= 500 ? 'server_error' : 'invalid_request'
}

interface Failure {
  readonly status: number
  readonly code: string
  readonly message: string
  readonly headers?: Readonly<Record<string, string>>
}

/** Errors whose meaning is known, with the wire message to use; undefined for the rest. */
function classify(error: FastifyError | Error): Failure | undefined {
  if (error instanceof AuthorizePageError) {
    const code = error.status === 403 ? 'forbidden' : 'invalid_request'
    return { status: error.status, code, message: error.message }
  }
  if (error instanceof OAuthError) {
    return {
      status: error.status,
      code: error.error,
      message: error.description,
      headers: { ...error.headers },
    }
  }
  if (error instanceof ProblemError) {
    return {
      status: error.status,
      code: error.fields.code,
      message: error.message,
      headers: { ...error.headers },
    }
  }
  if (isUnavailable(error)) {
    return {
      status: 503,
      code: 'temporarily_unavailable',
      message: 'the service is temporarily unavailable; retry later',
      headers: { 'retry-after': String(UNAVAILABLE_RETRY_AFTER) },
    }
  }
  const code = (error as FastifyError).code
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, code: 'payload_too_large', message: 'the request body is too large' }
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        status: 415,
        code: 'unsupported_media_type',
        message: 'unsupported Content-Type for this endpoint',
      }
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return {
        status: 400,
        code: 'invalid_request',
        message: 'the request body is empty or its length is wrong',
      }
    case 'FST_ERR_CTP_INVALID_TYPE':
      return {
        status: 400,
        code: 'invalid_request',
        message: 'the Content-Type header is malformed',
      }
  }
  const status = (error as FastifyError).statusCode
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return { status, code: 'invalid_request', message: 'the request is malformed' }
  }
  if (status === 503)
    return {
      status,
      code: 'temporarily_unavailable',
      message: 'the server is shutting down',
      headers: { 'retry-after': '5' },
    }
  return undefined
}

function titleFor(status: number): string {
  const titles: Record<number, string> = {
    400: 'Bad Request',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'Not Found',
    405: 'Method Not Allowed',
    409: 'Conflict',
    412: 'Precondition Failed',
    413: 'Content Too Large',
    415: 'Unsupported Media Type',
    422: 'Unprocessable Content',
    429: 'Too Many Requests',
    500: 'Internal Server Error',
    503: 'Service Unavailable',
  }
  return titles[status] ?? 'Error'
}
