import { createHash } from 'node:crypto'
import {
  ACCEPTED_TYPES,
  agreedType,
  mediaTypeOf,
  PURPOSE_NAMES,
  PURPOSES,
} from '../../storage/file-bytes/policy.js'
import { deleteFile, saveFile } from '../../storage/file-bytes/records.js'
import { sniff } from '../../storage/file-bytes/sniff.js'
import { fileStoreOf } from '../../storage/file-bytes/store.js'
import type { FileTable } from '../../storage/tables/storage.js'
import { recordChange } from '../activity/record.js'
import { payloadTooLarge } from '../conventions.js'
import { BINARY, defineEndpoint, type EndpointContext, jsonAnswer } from '../framework/endpoint.js'
import { queryMember, queryText } from '../framework/endpoint-query.js'
import { enumeration, type JsonSchema } from '../framework/fields.js'
import { withIdempotency } from '../framework/idempotency.js'
import type { BodyLimit, Endpoint } from '../framework/operation.js'
import { type Shown, view } from '../framework/views.js'
import { ProblemError } from '../problem.js'
import { referencesOf } from './file-references.js'
import { fileSchema, fileView } from './file-view.js'
import {
  capOf,
  checkDeclared,
  checkType,
  type Declared,
  invalid,
  requireWriteRole,
  unsupported,
} from './upload-checks.js'
import { isMultipart, MULTIPART_OVERHEAD, type Received, receiveForm } from './upload-form.js'

const FILES = '/api/v1/storage/files'
const SCOPE = 'storage:write'

/** What the query (and a raw upload's Content-Disposition) says about the upload. */
const query = {
  purpose: queryMember(
    enumeration(PURPOSE_NAMES, {
      required: false,
      description: 'Required for raw uploads (multipart may send it as a field instead)',
    }),
    'enum',
    `purpose must be one of ${PURPOSE_NAMES.join(', ')}`,
  ),
  visibility: queryMember(
    enumeration(['public', 'private'], {
      required: false,
      description: 'Default: public for covers, images, avatars and logos; private otherwise',
    }),
    'enum',
    'visibility must be public or private',
  ),
  filename: queryText({
    required: false,
    description:
      'The file name for raw uploads (or a Content-Disposition request header); sanitised',
  }),
}

type Context = Omit<EndpointContext, 'body' | 'bytes'>

const declaredOf = ({ query, input }: Context): Declared => ({
  purpose: query.purpose as string | undefined,
  visibility: query.visibility as string | undefined,
  filename: (query.filename as string | undefined) || input.filename,
})

/**
 * Checks an upload before its body is read: the role, then for a raw upload its type and
 * purpose; answers the most bytes it may send (a multipart form: the overall cap, its file
 * checked against its purpose once read).
 */
function uploadLimit(context: Context): BodyLimit {
  const { deps, caller, input } = context
  requireWriteRole(caller)
  if (isMultipart(input.contentType)) {
    const maxBytes = deps.config.uploadMaxBytes + MULTIPART_OVERHEAD
    return { maxBytes, detail: `a multipart upload may be at most ${maxBytes} bytes` }
  }
  const declaredType = mediaTypeOf(input.contentType)
  if (!declaredType)
    throw unsupported('send the file with its Content-Type, or as multipart/form-data')
  const { purpose } = checkDeclared(declaredOf(context))
  checkType(declaredType, purpose)
  const cap = capOf(deps, purpose)
  return { maxBytes: cap, detail: `files for ${purpose} may be at most ${cap} bytes` }
}

/** Stores an upload whose type its bytes confirm; idempotent with an Idempotency-Key. */
async function upload(context: EndpointContext) {
  const { deps, caller, input, bytes: body, now, operation } = context
  const received: Received = isMultipart(input.contentType)
    ? await receiveForm(deps, body, input.contentType ?? '', declaredOf(context))
    : {
        bytes: body,
        declaredType: mediaTypeOf(input.contentType) ?? '',
        declared: declaredOf(context),
      }
  const { purpose, visibility } = checkDeclared(received.declared)
  checkType(received.declaredType, purpose)
  const { bytes } = received
  const cap = capOf(deps, purpose)
  if (bytes.length > cap) throw payloadTooLarge(`files for ${purpose} may be at most ${cap} bytes`)
  if (bytes.length === 0) throw invalid('file', 'empty', 'the file is empty')
  const sniffed = sniff(bytes)
  const type = agreedType(received.declaredType, sniffed)
  if (!type)
    throw invalid(
      'file',
      'content_mismatch',
      `the bytes are not ${received.declaredType}${sniffed ? ` (they look like ${sniffed})` : ''}`,
    )
  // Octet-stream took the sniffed type, which must itself be one the purpose accepts.
  checkType(type, purpose)
  const answer = await withIdempotency(
    deps.database.db,
    {
      key: input.idempotencyKey,
      scope: `${caller.user.id} ${caller.clientId} ${FILES}`,
      // The bytes' digest too: another file under the same key is refused, not answered
      // with the first one.
      body: {
        type,
        purpose,
        visibility,
        filename: received.declared.filename,
        size: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
      },
      now,
    },
    async () => {
      const store = fileStoreOf(deps)
      const id = deps.random.id('fil')
      let row: FileTable
      try {
        // The file and its activity record in one transaction (the name is named, the bytes
        // never copied).
        row = await deps.database.db.transaction().execute(async (trx) => {
          const saved = await saveFile(trx, store, {
            id,
            bytes,
            contentType: type,
            filename: received.declared.filename,
            purpose,
            ...(visibility && { visibility }),
            uploadedBy: caller.user.id,
            now,
          })
          await recordChange(
            { deps, db: trx, caller, now },
            {
              operation,
              recordType: 'file',
              recordId: saved.id,
              changes: [
                { field: 'filename' },
                { field: 'content_type', after: saved.content_type },
                { field: 'purpose', after: saved.purpose },
                { field: 'visibility', after: saved.visibility },
                { field: 'size', after: saved.size },
              ],
            },
          )
          return saved
        })
      } catch (error) {
        // Bytes on disk are outside the transaction: they go with it.
        if (store.kind === 'disk') await store.remove(deps.database.db, id)
        throw error
      }
      const stored = fileView(deps, row)
      return { status: 201, body: stored, location: stored.url as string }
    },
  )
  return {
    ...jsonAnswer(answer.body, {
      status: answer.status,
      ...(answer.replayed && { headers: { 'idempotent-replayed': 'true' } }),
    }),
    ...(answer.location && { location: answer.location }),
  }
}

/** Deletes a file no record names; a lecturer only the files they uploaded. */
async function remove({ deps, caller, params, operation, now }: EndpointContext) {
  requireWriteRole(caller)
  const id = params.id ?? ''
  const db = deps.database.db
  const row = await db
    .selectFrom('files')
    .select(['id', 'uploaded_by'])
    .where('id', '=', id)
    .executeTakeFirst()
  if (!row)
    throw new ProblemError(404, {
      code: 'not_found',
      title: 'Not Found',
      detail: 'no file with this id',
    })
  if (caller.user.role === 'lecturer' && row.uploaded_by !== caller.user.id)
    throw new ProblemError(403, {
      code: 'forbidden_role',
      title: 'Forbidden',
      detail: 'a lecturer may delete only the files they uploaded',
    })
  const users = await referencesOf(deps, id)
  if (users.length > 0)
    throw new ProblemError(409, {
      code: 'conflict',
      title: 'Conflict',
      detail: `the file is used by ${users.join(', ')}; remove it from there first`,
      referenced_by: users,
    })
  // The record first: a delete whose record fails keeps the file (its bytes go last).
  await db.transaction().execute(async (trx) => {
    await recordChange(
      { deps, db: trx, caller, now },
      { operation, recordType: 'file', recordId: id },
    )
    await deleteFile(trx, fileStoreOf(deps), id)
  })
  return { status: 204 }
}

/** A part of the multipart form: its schema (the query member's, without its description). */
const partOf = (schema: JsonSchema): Shown<unknown> => {
  const { description: _description, ...rest } = schema
  return { schema: rest, value: () => undefined }
}

/** The multipart form of an upload: the file, and the query's purpose and visibility. */
const form = view(
  {
    file: partOf(BINARY),
    purpose: partOf(query.purpose.schema()),
    visibility: partOf(query.visibility.schema()),
  },
  { required: ['file', 'purpose'] },
)

/**
 * Storage (write only, DOMAIN.md §4.3.17): uploads, multipart or raw, each checked against
 * its purpose's types and size and by sniffing its bytes; deletes of files nothing names.
 */
export const fileEndpoints: readonly Endpoint[] = [
  defineEndpoint({
    name: 'storage.upload',
    method: 'POST',
    path: FILES,
    operationId: 'uploadFile',
    summary:
      'Upload a file (multipart `file` + `purpose`, `visibility`; or the raw bytes with their Content-Type and the query parameters)',
    description: `Caps per purpose: ${PURPOSE_NAMES.map((p) => `${p} ${PURPOSES[p].maxBytes / 1024 / 1024} MB (${PURPOSES[p].types.join(', ')})`).join('; ')}. The declared type must match the bytes (content sniffing). There is no list or read endpoint: storage is write-only; files are served at their url.`,
    tags: ['storage'],
    scope: SCOPE,
    query,
    // Other parameters are ignored, as they always were for uploads.
    queryRules: { unknown: 'ignore' },
    idempotent: true,
    rawBody: {
      mediaTypes: {
        'multipart/form-data': form.schema,
        ...Object.fromEntries(ACCEPTED_TYPES.map((type) => [type, BINARY])),
      },
      limit: uploadLimit,
    },
    output: { status: 201, description: 'The stored file', schema: fileSchema, location: true },
    problems: {
      '400': 'Malformed multipart body',
      '401': 'No token, or an invalid one',
      '403': 'The token lacks storage:write, or the role may not upload',
      '413': 'The file is larger than its purpose allows',
      '415': 'The declared type is not accepted for this purpose',
      '422': 'Missing purpose or file, or bytes that do not match the declared type',
    },
    run: upload,
  }),
  defineEndpoint({
    name: 'storage.delete',
    method: 'DELETE',
    path: `${FILES}/:id`,
    operationId: 'deleteFile',
    summary: 'Delete a file no digital product uses',
    tags: ['storage'],
    scope: SCOPE,
    output: { status: 204, description: 'Deleted' },
    problems: {
      '401': 'No token, or an invalid one',
      '403': 'The token lacks storage:write, or the role may not delete',
      '404': 'No such file',
      '409': 'A digital product still uses the file',
    },
    run: remove,
  }),
]
