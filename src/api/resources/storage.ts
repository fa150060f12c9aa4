import { createHash } from 'node:crypto'
import type { Readable } from 'node:stream'
import multipart from '@fastify/multipart'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AppDeps } from '../../app-deps.js'
import type { Role } from '../../oauth/roles.js'
import {
  ACCEPTED_TYPES,
  agreedType,
  isPurpose,
  mediaTypeOf,
  PURPOSE_NAMES,
  PURPOSES,
} from '../../storage/files/policy.js'
import { deleteFile, saveFile } from '../../storage/files/records.js'
import { fileUrl } from '../../storage/files/signing.js'
import { sniff } from '../../storage/files/sniff.js'
import { fileStoreOf } from '../../storage/files/store.js'
import type { FilePurpose, FileTable } from '../../storage/tables/storage.js'
import type { ApiArea } from '../area.js'
import { type Caller, requireScope } from '../caller.js'
import { type FieldError, timestamp, validationFailed } from '../conventions.js'
import { withIdempotency } from '../framework/idempotency.js'
import type { ResourceDb } from '../framework/store.js'
import { legacyCallerOf } from '../legacy-routes.js'
import type { OpenApiPaths } from '../openapi-paths.js'
import { ProblemError } from '../problem.js'
import { digitalProducts } from './digital-products.js'

const FILES = '/api/v1/storage/files'
const SCOPE = 'storage:write'
/** Who may upload: the roles that can be granted storage:write (lecturers attach lesson files). */
const WRITE_ROLES: readonly Role[] = ['owner', 'admin', 'editor', 'lecturer']

/** The JSON of a file record (DOMAIN.md §4.3.17); private files carry a short-lived signed URL. */
export function fileView(deps: AppDeps, row: FileTable): Record<string, unknown> {
  return {
    id: row.id,
    object: 'file',
    url: fileUrl(deps.config, row, deps.clock.now()),
    filename: row.filename,
    content_type: row.content_type,
    size: Number(row.size),
    checksum_sha256: row.checksum_sha256,
    ...(row.width !== null && { width: row.width }),
    ...(row.height !== null && { height: row.height }),
    purpose: row.purpose,
    visibility: row.visibility,
    created_at: timestamp(Number(row.created_at)),
  }
}

const tooLarge = (detail: string) =>
  new ProblemError(413, { code: 'payload_too_large', title: 'Content Too Large', detail })

const unsupported = (detail: string) =>
  new ProblemError(415, { code: 'unsupported_media_type', title: 'Unsupported Media Type', detail })

const invalid = (field: string, code: string, message: string) =>
  validationFailed([{ field, code, message }])

/** What an upload says about itself, from multipart fields or the query string. */
interface Declared {
  purpose?: string
  visibility?: string
  filename?: string
}

/** The largest file `purpose` accepts under the configured overall cap. */
function capOf(deps: AppDeps, purpose: string | undefined): number {
  const overall = deps.config.uploadMaxBytes
  return isPurpose(purpose) ? Math.min(PURPOSES[purpose].maxBytes, overall) : overall
}

/**
 * Reads a stream into memory, refusing (413) as soon as it passes `cap` bytes: nothing
 * beyond the cap is kept; the rest of the body is discarded as it arrives.
 */
function readCapped(stream: Readable, cap: number, what: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let settled = false
    const settle = (error?: unknown) => {
      if (settled) return
      settled = true
      stream.off('data', onData).off('end', onEnd).off('error', settle)
      if (error === undefined) return resolve(Buffer.concat(chunks, size))
      stream.resume()
      reject(error)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > cap) settle(tooLarge(`${what} is larger than ${cap} bytes`))
      else chunks.push(chunk)
    }
    const onEnd = () => settle()
    stream.on('data', onData).once('end', onEnd).once('error', settle)
  })
}

/** Checks the purpose and visibility an upload declared; 422 naming the field. */
function checkDeclared(declared: Declared): {
  purpose: FilePurpose
  visibility: 'public' | 'private' | undefined
} {
  const errors: FieldError[] = []
  const { purpose, visibility } = declared
  if (!isPurpose(purpose))
    errors.push({
      field: 'purpose',
      code: purpose === undefined ? 'required' : 'enum',
      message: `purpose must be one of ${PURPOSE_NAMES.join(', ')}`,
    })
  if (visibility !== undefined && visibility !== 'public' && visibility !== 'private')
    errors.push({
      field: 'visibility',
      code: 'enum',
      message: 'visibility must be public or private',
    })
  if (errors.length > 0 || !isPurpose(purpose)) throw validationFailed(errors)
  return { purpose, visibility: visibility as 'public' | 'private' | undefined }
}

/** A declared type must be one the purpose accepts (415 otherwise, listing them). */
function checkType(type: string, purpose: FilePurpose | undefined): void {
  if (type === 'application/octet-stream') return
  const accepted = purpose ? PURPOSES[purpose].types : ACCEPTED_TYPES
  if (!accepted.includes(type))
    throw unsupported(
      `${type} is not accepted${purpose ? ` for ${purpose}` : ''}; send one of ${accepted.join(', ')}`,
    )
}

interface Received {
  readonly bytes: Buffer
  readonly declaredType: string
  readonly declared: Declared
}

const queryOf = (request: FastifyRequest): Declared => {
  const query = request.query as Record<string, unknown>
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined)
  return {
    purpose: text(query.purpose),
    visibility: text(query.visibility),
    filename: text(query.filename) ?? filenameOf(request.headers['content-disposition']),
  }
}

/** The filename of a `Content-Disposition: attachment; filename="…"` request header. */
function filenameOf(header: string | undefined): string | undefined {
  if (!header) return undefined
  const extended = /filename\*=UTF-8''([^;]+)/i.exec(header)?.[1]
  if (extended) {
    try {
      return decodeURIComponent(extended)
    } catch {
      return undefined
    }
  }
  return /filename="([^"]*)"/i.exec(header)?.[1] ?? /filename=([^;\s]+)/i.exec(header)?.[1]
}

/** A raw upload: the body is the file, its Content-Type the declared type. */
async function receiveRaw(request: FastifyRequest, deps: AppDeps): Promise<Received> {
  const declared = queryOf(request)
  const declaredType = mediaTypeOf(request.headers['content-type'])
  if (!declaredType)
    throw unsupported('send the file with its Content-Type, or as multipart/form-data')
  const encoding = request.headers['content-encoding']
  if (encoding !== undefined && encoding !== 'identity')
    throw unsupported('send the file without Content-Encoding')
  const { purpose } = checkDeclared(declared)
  checkType(declaredType, purpose)
  const cap = capOf(deps, purpose)
  const length = Number(request.headers['content-length'])
  if (Number.isFinite(length) && length > cap)
    throw tooLarge(`files for ${purpose} may be at most ${cap} bytes; this one has ${length}`)
  const bytes = await readCapped(request.body as Readable, cap, `a file for ${purpose}`)
  return { bytes, declaredType, declared }
}

/** A multipart upload: one `file` part, and `purpose`, `visibility` fields (or query parameters). */
async function receiveMultipart(request: FastifyRequest, deps: AppDeps): Promise<Received> {
  const declared = queryOf(request)
  let file: { bytes: Buffer; type: string } | undefined
  try {
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        if (typeof part.value !== 'string') continue
        if (part.fieldname === 'purpose') declared.purpose = part.value
        else if (part.fieldname === 'visibility') declared.visibility = part.value
        else if (part.fieldname === 'filename') declared.filename = part.value
        continue
      }
      if (part.fieldname !== 'file' || file) {
        part.file.resume()
        throw invalid(part.fieldname, 'unexpected', 'send exactly one file, in the part named file')
      }
      const type = mediaTypeOf(part.mimetype) ?? 'application/octet-stream'
      checkType(type, isPurpose(declared.purpose) ? declared.purpose : undefined)
      const cap = capOf(deps, declared.purpose)
      const bytes = await readCapped(part.file, cap, 'the file')
      declared.filename ??= part.filename
      file = { bytes, type }
    }
  } catch (error) {
    if (error instanceof ProblemError) throw error
    const status = (error as { statusCode?: unknown }).statusCode
    if (status === 413) throw tooLarge('the multipart body has too many or too large parts')
    throw new ProblemError(400, {
      code: 'invalid_request',
      title: 'Bad Request',
      detail: 'the multipart/form-data body is malformed',
    })
  }
  if (!file) throw invalid('file', 'required', 'send the file in a part named file')
  return { bytes: file.bytes, declaredType: file.type, declared }
}

async function upload(request: FastifyRequest, reply: FastifyReply, deps: AppDeps) {
  const caller = writerOf(request, deps)
  const received = request.isMultipart()
    ? await receiveMultipart(request, deps)
    : await receiveRaw(request, deps)
  const { purpose, visibility } = checkDeclared(received.declared)
  checkType(received.declaredType, purpose)
  const { bytes } = received
  const cap = capOf(deps, purpose)
  if (bytes.length > cap) throw tooLarge(`files for ${purpose} may be at most ${cap} bytes`)
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
  const now = deps.clock.now()
  const key = request.headers['idempotency-key']
  const answer = await withIdempotency(
    deps.database.db,
    {
      key: typeof key === 'string' ? key : undefined,
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
      const row = await saveFile(deps.database.db, fileStoreOf(deps), {
        id: deps.random.id('fil'),
        bytes,
        contentType: type,
        filename: received.declared.filename,
        purpose,
        ...(visibility && { visibility }),
        uploadedBy: caller.user.id,
        now,
      })
      const body = fileView(deps, row)
      return { status: 201, body, location: body.url as string }
    },
  )
  if (answer.location) reply.header('location', answer.location)
  if (answer.replayed) reply.header('idempotent-replayed', 'true')
  return reply.code(answer.status).header('cache-control', 'no-store').send(answer.body)
}

/** storage:write and a role that may upload. */
function writerOf(request: FastifyRequest, deps: AppDeps): Extract<Caller, { kind: 'token' }> {
  const caller = requireScope(legacyCallerOf(request), SCOPE, deps.config.issuer)
  if (!WRITE_ROLES.includes(caller.user.role))
    throw new ProblemError(403, {
      code: 'forbidden_role',
      title: 'Forbidden',
      detail: `the ${caller.user.role} role may not change storage`,
    })
  return caller
}

/**
 * Where a file can be named: by its URL (`…/files/{id}/…`: covers, avatars, logos, links in
 * HTML and blocks) or by its id in JSON (`"file_id": "fil_…"`: product files, recordings).
 */
const FILE_REFERENCES: Readonly<Record<string, readonly string[]>> = {
  digital_products: ['files', 'cover_image_url', 'description'],
  courses: ['cover_image_url', 'promo_video_url', 'description'],
  lessons: ['body', 'video', 'attachments'],
  events: ['cover_image_url', 'recording', 'description'],
  membership_plans: ['cover_image_url', 'description'],
  posts: ['cover_image_url', 'body'],
  pages: ['blocks'],
  lecturers: ['avatar_url'],
  appearance: ['logo_url', 'logo_dark_url', 'favicon_url'],
  users: ['avatar_url'],
}

/** The records (as `table/id`) that name the file, which a delete would leave dangling. */
async function referencesOf(deps: AppDeps, id: string): Promise<string[]> {
  const db = deps.database.db as unknown as ResourceDb
  const url = `/files/${id}/`
  const quoted = `"${id}"`
  const found: string[] = []
  for (const [table, columns] of Object.entries(FILE_REFERENCES)) {
    const rows = await db
      .selectFrom(table)
      .select(['id', ...columns])
      .where((eb) =>
        eb.or(columns.flatMap((c) => [eb(c, 'like', `%${url}%`), eb(c, 'like', `%${quoted}%`)])),
      )
      .execute()
    // LIKE narrows (`_` in ids is a wildcard there); the exact check is made here.
    for (const row of rows)
      if (
        columns.some(
          (c) => String(row[c] ?? '').includes(url) || String(row[c] ?? '').includes(quoted),
        )
      )
        found.push(`${table}/${row.id as string}`)
  }
  return found
}

async function remove(request: FastifyRequest, reply: FastifyReply, deps: AppDeps) {
  const caller = writerOf(request, deps)
  const { id } = request.params as { id: string }
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
  // A lecturer uploads for their own lessons, and removes only what they uploaded.
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
  await deleteFile(db, fileStoreOf(deps), id)
  return reply.code(204).send()
}

/**
 * Uploads and deletes, in a plugin of their own: its body parsers hand the request stream to
 * the handler (raw uploads) or to the multipart reader, each read with a cap, never buffered
 * whole by a parser first.
 */
function register(api: FastifyInstance, deps: AppDeps): void {
  void api.register(async (uploads) => {
    uploads.removeAllContentTypeParsers()
    uploads.addContentTypeParser('*', (_request, payload, done) => done(null, payload))
    await uploads.register(multipart, {
      limits: { files: 1, fields: 10, parts: 11, fieldSize: 1000, fileSize: 25 * 1024 * 1024 },
    })
    // A refused upload answers before its body is read: the rest is discarded, so the
    // connection stays usable and nothing beyond the cap is kept.
    uploads.addHook('onResponse', async (request) => {
      if (request.raw.complete) return
      request.raw.unpipe()
      request.raw.resume()
    })
    uploads.post(FILES, (request, reply) => upload(request, reply, deps))
    uploads.delete(`${FILES}/:id`, (request, reply) => remove(request, reply, deps))
  })
}

const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
})

const fileSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    object: { const: 'file' },
    url: {
      type: 'string',
      description:
        'Plain for public files; a signed link valid for about 15 minutes for private ones',
    },
    filename: { type: 'string' },
    content_type: { type: 'string', enum: [...ACCEPTED_TYPES] },
    size: { type: 'integer' },
    checksum_sha256: { type: 'string' },
    width: { type: 'integer' },
    height: { type: 'integer' },
    purpose: { type: 'string', enum: PURPOSE_NAMES },
    visibility: { type: 'string', enum: ['public', 'private'] },
    created_at: { type: 'string', format: 'date-time' },
  },
}

const declaredParams = [
  {
    name: 'purpose',
    in: 'query',
    required: false,
    description: 'Required for raw uploads (multipart may send it as a field instead)',
    schema: { type: 'string', enum: PURPOSE_NAMES },
  },
  {
    name: 'visibility',
    in: 'query',
    required: false,
    description: 'Default: public for covers, images, avatars and logos; private otherwise',
    schema: { type: 'string', enum: ['public', 'private'] },
  },
  {
    name: 'filename',
    in: 'query',
    required: false,
    description:
      'The file name for raw uploads (or a Content-Disposition request header); sanitised',
    schema: { type: 'string' },
  },
  { name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string' } },
]

const paths: OpenApiPaths = {
  [FILES]: {
    post: {
      operationId: 'uploadFile',
      summary:
        'Upload a file (multipart `file` + `purpose`, `visibility`; or the raw bytes with their Content-Type and the query parameters)',
      description: `Caps per purpose: ${PURPOSE_NAMES.map((p) => `${p} ${PURPOSES[p].maxBytes / 1024 / 1024} MB (${PURPOSES[p].types.join(', ')})`).join('; ')}. The declared type must match the bytes (content sniffing). There is no list or read endpoint: storage is write-only; files are served at their url.`,
      tags: ['storage'],
      security: [{ oauth2: [SCOPE] }],
      parameters: declaredParams,
      requestBody: {
        required: true,
        content: {
          'multipart/form-data': {
            schema: {
              type: 'object',
              required: ['file', 'purpose'],
              properties: {
                file: { type: 'string', format: 'binary' },
                purpose: { type: 'string', enum: PURPOSE_NAMES },
                visibility: { type: 'string', enum: ['public', 'private'] },
              },
            },
          },
          ...Object.fromEntries(
            ACCEPTED_TYPES.map((type) => [type, { schema: { type: 'string', format: 'binary' } }]),
          ),
        },
      },
      responses: {
        '201': {
          description: 'The stored file',
          headers: { Location: { schema: { type: 'string' } } },
          content: { 'application/json': { schema: fileSchema } },
        },
        '400': problem('Malformed multipart body'),
        '401': problem('No token, or an invalid one'),
        '403': problem('The token lacks storage:write, or the role may not upload'),
        '413': problem('The file is larger than its purpose allows'),
        '415': problem('The declared type is not accepted for this purpose'),
        '422': problem('Missing purpose or file, or bytes that do not match the declared type'),
      },
    },
  },
  [`${FILES}/{id}`]: {
    delete: {
      operationId: 'deleteFile',
      summary: 'Delete a file no digital product uses',
      tags: ['storage'],
      security: [{ oauth2: [SCOPE] }],
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      responses: {
        '204': { description: 'Deleted' },
        '401': problem('No token, or an invalid one'),
        '403': problem('The token lacks storage:write, or the role may not delete'),
        '404': problem('No such file'),
        '409': problem('A digital product still uses the file'),
      },
    },
  },
}

/** Storage (write only, DOMAIN.md §4.3.17) and the digital products built on it (§4.3.15). */
export const storageArea: ApiArea = { resources: [digitalProducts], legacy: { paths, register } }
