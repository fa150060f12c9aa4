import type { FastifyReply, FastifyRequest } from 'fastify'
import { IF_NONE_MATCH_PARAMETER, NOT_MODIFIED_RESPONSE } from '../api/framework/not-modified.js'
import { ProblemError } from '../api/problem.js'
import type { AppDeps } from '../app-deps.js'
import { contentDisposition, servedInline, servedType } from '../storage/file-bytes/policy.js'
import { signatureValid } from '../storage/file-bytes/signing.js'
import { fileStoreOf, isFileId } from '../storage/file-bytes/store.js'
import { ifNoneMatchHolds } from './conditional-get.js'
import type { RouteModule } from './deps.js'

/** The same 404 for a file that does not exist, a private one without a valid link, or an expired link. */
const notFound = () =>
  new ProblemError(404, {
    code: 'not_found',
    title: 'Not Found',
    detail: 'no file here, or the link has expired; ask for a new link',
  })

/**
 * Serves an uploaded file. Public files at their plain URL; private ones only with a valid,
 * unexpired signature (`expires`, `signature`). Every answer is inert in a browser: the
 * stored (sniffed) type, never HTML; `nosniff`; a sandboxing CSP with nothing allowed; and
 * `attachment` for everything but images and PDFs.
 */
async function serve(request: FastifyRequest, reply: FastifyReply, deps: AppDeps) {
  const { id } = request.params as { id: string; filename: string }
  if (!isFileId(id)) throw notFound()
  const db = deps.database.db
  const file = await db.selectFrom('files').selectAll().where('id', '=', id).executeTakeFirst()
  if (!file) throw notFound()
  const query = request.query as Record<string, unknown>
  const signed = query.signature !== undefined || query.expires !== undefined
  if (file.visibility !== 'public' || signed) {
    if (!signatureValid(deps.config, id, query.expires, query.signature, deps.clock.now()))
      throw notFound()
  }
  const etag = `"${file.checksum_sha256}"`
  void reply
    .header('content-type', servedType(file.content_type))
    .header(
      'content-disposition',
      contentDisposition(servedInline(file.content_type) ? 'inline' : 'attachment', file.filename),
    )
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "sandbox; default-src 'none'")
    .header('cross-origin-resource-policy', 'cross-origin')
    .header('etag', etag)
    .header(
      'cache-control',
      file.visibility === 'public' && !signed ? 'public, max-age=3600' : 'private, no-store',
    )
  const held = request.headers['if-none-match']
  if (ifNoneMatchHolds(typeof held === 'string' ? held : undefined, etag))
    return reply.code(304).send()
  const bytes = await fileStoreOf(deps).get(db, id)
  if (!bytes) throw notFound()
  return reply.header('content-length', bytes.length).send(bytes)
}

const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
})

/** Uploaded files, outside /api/v1: browsers and download links reach them without a token. */
export const filesRoutes: RouteModule = {
  openapi: {
    '/files/{id}/{filename}': {
      get: {
        operationId: 'downloadFile',
        summary:
          'Download a file: public files as is, private ones with the signed link from the API (expires, signature)',
        tags: ['storage'],
        security: [{}],
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          {
            name: 'filename',
            in: 'path',
            required: true,
            description: 'Any name; the stored one is sent in Content-Disposition',
            schema: { type: 'string' },
          },
          { name: 'expires', in: 'query', required: false, schema: { type: 'integer' } },
          { name: 'signature', in: 'query', required: false, schema: { type: 'string' } },
          IF_NONE_MATCH_PARAMETER,
        ],
        responses: {
          '200': {
            description:
              'The bytes, with their stored type (never HTML), nosniff, a sandboxing CSP, and attachment for anything but images and PDFs',
            headers: {
              ETag: { schema: { type: 'string' } },
              'Content-Disposition': { schema: { type: 'string' } },
            },
            content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
          },
          '304': NOT_MODIFIED_RESPONSE,
          '404': problem('No such file, a private file without a valid link, or an expired link'),
        },
      },
    },
  },
  register(app, deps) {
    app.get('/files/:id/:filename', (request, reply) => serve(request, reply, deps))
  },
}
