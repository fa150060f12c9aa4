import { type FieldError, validationFailed } from '../api/conventions.js'
import type { JsonSchema } from '../api/framework/fields.js'
import type { OperationSpec } from '../api/framework/operation.js'
import { tooLongForUrl, urlArgumentTooLong } from './argument-lengths.js'

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

/**
 * A file as a tool call gave it: its base64 without line breaks, and the size that decodes to,
 * counted from the length alone. Its characters are checked, and it is decoded, by
 * {@link decodeToolFile} once that size is allowed.
 */
export interface ToolFile {
  readonly base64: string
  readonly mediaType: string
  /** The number of bytes the base64 decodes to (from its length and padding). */
  readonly size: number
}

/**
 * Base64's alphabet, then at most two `=`: one character class under one quantifier, which
 * V8 matches in linear time without recursion however long the text (a group under a
 * quantifier, as `(?:[…]{4})*`, overflowed its stack beyond about 4.4 million characters).
 * The length is checked apart: a multiple of four.
 */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

/** The line breaks (and spaces) base64 may be wrapped with: not part of it. */
const WRAPPING = /[\r\n\t ]/g

/** The bytes `base64` decodes to, from its length and padding alone (nothing is read). */
function decodedSize(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0
  return Math.max(0, Math.floor((base64.length * 3) / 4) - padding)
}

const invalidBase64 = (): FieldError => ({
  field: 'content_base64',
  code: 'invalid_base64',
  message: 'content_base64 must be the file in base64 (A–Z, a–z, 0–9, + and /, padded with =)',
})

/**
 * The file of a tool call's `content_base64` and `media_type`, or undefined after adding
 * the errors that say what is wrong with them (the caller answers them as a 422). Its size
 * is known from the string's length; its characters are checked by {@link decodeToolFile},
 * after the size was held to the upload's cap, as REST reads no byte of a body beyond it.
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
  else if (typeof content !== 'string') errors.push(invalidBase64())
  if (mediaType === undefined)
    errors.push({ field: 'media_type', code: 'required', message: 'media_type is required' })
  else if (tooLongForUrl(mediaType)) errors.push(urlArgumentTooLong('media_type'))
  else if (typeof mediaType !== 'string' || mediaType.toLowerCase().startsWith('multipart/'))
    errors.push({
      field: 'media_type',
      code: 'invalid_value',
      message: 'media_type must be the file’s own media type, such as image/png',
    })
  if (errors.length > before || typeof content !== 'string' || typeof mediaType !== 'string')
    return undefined
  const base64 = content.replace(WRAPPING, '')
  return { base64, mediaType, size: decodedSize(base64) }
}

/**
 * The bytes of a tool call's file: a 422 naming `content_base64` unless it is padded base64
 * (RFC 4648 §4). Called once its size is allowed.
 */
export function decodeToolFile(file: ToolFile): Buffer {
  if (file.base64.length % 4 !== 0 || !BASE64.test(file.base64))
    throw validationFailed([invalidBase64()])
  return Buffer.from(file.base64, 'base64')
}
