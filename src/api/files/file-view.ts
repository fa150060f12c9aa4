import type { AppDeps } from '../../app-deps.js'
import { ACCEPTED_TYPES, PURPOSE_NAMES } from '../../storage/file-bytes/policy.js'
import { fileUrl } from '../../storage/file-bytes/signing.js'
import type { FileTable } from '../../storage/tables/storage.js'
import { shown, view } from '../framework/views.js'

/** A file record with the URL it is served at. */
type Served = FileTable & { readonly url: string }

/** A file record as the API shows it (DOMAIN.md §4.3.17); width and height only for images. */
const file = view<Served>({
  id: shown.id(),
  object: shown.constant('file'),
  url: shown.string({
    description:
      'Plain for public files; a signed link valid for about 15 minutes for private ones',
  }),
  filename: shown.string(),
  content_type: shown.string({ enum: ACCEPTED_TYPES }),
  size: shown.integer(),
  checksum_sha256: shown.string(),
  width: shown.integer({ omitNull: true }),
  height: shown.integer({ omitNull: true }),
  purpose: shown.string({ enum: PURPOSE_NAMES }),
  visibility: shown.string({ enum: ['public', 'private'] }),
  created_at: shown.time(),
})

/** The JSON of a file record; private files carry a short-lived signed URL. */
export function fileView(deps: AppDeps, row: FileTable): Record<string, unknown> {
  return file.show({ ...row, url: fileUrl(deps.config, row, deps.clock.now()) })
}

/** The JSON Schema of {@link fileView}. */
export const fileSchema = file.schema
