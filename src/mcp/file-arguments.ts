import type { FieldError } from '../api/conventions.js'
import type { JsonSchema } from '../api/framework/fields.js'
import type { OperationSpec } from '../api/framework/operation.js'

/**
 * The media types a tool may send a file as: those the operation's raw body is documented
 * with, but a multipart form (a tool sends the file itself, its other parts as arguments).
 * Undefined when the operation takes no raw body (a JSON body, or none).
 */
export function rawMediaTypesOf(operation: OperationSpec): string[] | undefined {
  const requestBody = operation.openapi.requestBody as
    | { content?: Record<string, unknown> }
    | undefined
  const types = Object.keys(requestBody?.content ?? {})
  if (types.length === 0 || types.includes('application/json')) return undefined
  return types.filter((type) => !type.startsWith('multipart/'))
}

/** The arguments that carry a file: its bytes in base64 and the media type it is sent as. */
export function fileArgumentSchemas(mediaTypes: readonly string[]): Record<string, JsonSchema> {
  return {
    content_base64: {
      type: 'string',
      contentEncoding: 'base64',
      description:
        'The file’s bytes in base64 (RFC 4648 §4, padded; line breaks are ignored). The size and type rules are the REST upload’s, on the decoded bytes.',
    },
    media_type: {
      type: 'string',
      enum: [...mediaTypes],
      description:
        'The file’s media type, as REST takes it in Content-Type: it must be one the purpose accepts, and the bytes must be one',
    },
  }
}

/** A file as a tool call gave it, checked to be base64; decoded only once its size is allowed. */
export interface ToolFile {
  readonly base64: string
  readonly mediaType: string
  /** The number of bytes the base64 decodes to. */
  readonly size: number
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/**
 * The file of a tool call's `content_base64` and `media_type`, or undefined after adding
 * the errors that say what is wrong with them (the caller answers them as a 422).
 */
export function readToolFile(
  content: unknown,
  mediaType: unknown,
  errors: FieldError[],
): ToolFile | undefined {
  const before = errors.length
  if (content === undefined)
    errors.push({
      field: 'content_base64',
      code: 'required',
      message: 'content_base64 is required',
    })
  const base64 = typeof content === 'string' ? content.replace(/[\r\n\t ]/g, '') : undefined
  if (content !== undefined && (base64 === undefined || !BASE64.test(base64)))
    errors.push({
      field: 'content_base64',
      code: 'invalid_base64',
      message: 'content_base64 must be the file in base64 (A–Z, a–z, 0–9, + and /, padded with =)',
    })
  if (mediaType === undefined)
    errors.push({ field: 'media_type', code: 'required', message: 'media_type is required' })
  else if (typeof mediaType !== 'string' || mediaType.toLowerCase().startsWith('multipart/'))
    errors.push({
      field: 'media_type',
      code: 'invalid_value',
      message: 'media_type must be the file’s own media type, such as image/png',
    })
  if (errors.length > before || base64 === undefined || typeof mediaType !== 'string')
    return undefined
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0
  return { base64, mediaType, size: (base64.length / 4) * 3 - padding }
}
