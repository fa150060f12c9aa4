import { maxHeaderSize } from 'node:http'
import type { FieldError } from '../api/conventions.js'

/**
 * The longest argument a tool call may give where REST takes it in the URL or a header (path
 * and query parameters, a file's name and media type): Node refuses a request line and
 * headers beyond `maxHeaderSize` (16 KiB), so no REST request carries a longer one; over MCP
 * only the body's limit (a file's size in base64) would hold them.
 */
export const URL_ARGUMENT_MAX = maxHeaderSize

/** Whether `value` is longer, as text (a list or anything else as its JSON), than that. */
export const tooLongForUrl = (value: unknown): boolean =>
  (typeof value === 'string' ? value.length : (JSON.stringify(value) ?? '').length) >
  URL_ARGUMENT_MAX

/** The error of an argument longer than any URL or header carries over HTTP. */
export const urlArgumentTooLong = (field: string): FieldError => ({
  field,
  code: 'too_long',
  message: `${field} may be at most ${URL_ARGUMENT_MAX} characters, as much as a REST request’s URL or header carries`,
})
