import type { AppDeps } from '../../app-deps.js'
import { isPurpose, mediaTypeOf } from '../../storage/file-bytes/policy.js'
import { payloadTooLarge } from '../conventions.js'
import { ProblemError } from '../problem.js'
import { capOf, checkType, type Declared, invalid } from './upload-checks.js'

/** What an upload sent: the file's bytes, the type it declared, and what it said about itself. */
export interface Received {
  readonly bytes: Buffer
  readonly declaredType: string
  readonly declared: Declared
}

/** The multipart form's limits: one file, and a few short fields beside it. */
const LIMITS = { files: 1, fields: 10, parts: 11, fieldBytes: 1000 }

/** What a multipart body may add to its file: boundaries, part headers and the fields. */
export const MULTIPART_OVERHEAD = 64 * 1024

export const isMultipart = (contentType: string | undefined): boolean =>
  mediaTypeOf(contentType) === 'multipart/form-data'

const tooManyParts = () => payloadTooLarge('the multipart body has too many or too large parts')

async function formOf(bytes: Buffer, contentType: string): Promise<FormData> {
  try {
    return await new Response(bytes, { headers: { 'content-type': contentType } }).formData()
  } catch {
    throw new ProblemError(400, {
      code: 'invalid_request',
      title: 'Bad Request',
      detail: 'the multipart/form-data body is malformed',
    })
  }
}

/**
 * A multipart upload: one `file` part, and `purpose`, `visibility`, `filename` fields (which
 * win over the query's). Parts are taken in order, each checked with what is known so far.
 */
export async function receiveForm(
  deps: AppDeps,
  bytes: Buffer,
  contentType: string,
  declared: Declared,
): Promise<Received> {
  const form = await formOf(bytes, contentType)
  let file: { bytes: Buffer; type: string } | undefined
  let fields = 0
  let parts = 0
  for (const [name, value] of form) {
    parts += 1
    if (parts > LIMITS.parts) throw tooManyParts()
    if (typeof value === 'string') {
      fields += 1
      if (fields > LIMITS.fields) throw tooManyParts()
      // A longer field is cut at the limit, as a streaming form reader does.
      const text = Buffer.from(value).subarray(0, LIMITS.fieldBytes).toString()
      if (name === 'purpose') declared.purpose = text
      else if (name === 'visibility') declared.visibility = text
      else if (name === 'filename') declared.filename = text
      continue
    }
    if (file) throw tooManyParts()
    if (name !== 'file')
      throw invalid(name, 'unexpected', 'send exactly one file, in the part named file')
    const type = mediaTypeOf(value.type) ?? 'application/octet-stream'
    checkType(type, isPurpose(declared.purpose) ? declared.purpose : undefined)
    const cap = capOf(deps, declared.purpose)
    if (value.size > cap) throw payloadTooLarge(`the file is larger than ${cap} bytes`)
    declared.filename ??= value.name || undefined
    file = { bytes: Buffer.from(await value.arrayBuffer()), type }
  }
  if (!file) throw invalid('file', 'required', 'send the file in a part named file')
  return { bytes: file.bytes, declaredType: file.type, declared }
}
