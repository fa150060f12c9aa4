import type { AppDeps } from '../../app-deps.js'
import { ACCEPTED_TYPES, PURPOSE_NAMES } from '../../storage/file-bytes/policy.js'
import { fileUrl } from '../../storage/file-bytes/signing.js'
import type { FileTable } from '../../storage/tables/storage.js'
import { timestamp } from '../conventions.js'

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

/** The JSON Schema of {@link fileView}. */
export const fileSchema = {
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
