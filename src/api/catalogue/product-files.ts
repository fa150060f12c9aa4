import type { AppDeps } from '../../app-deps.js'
import { signedFileUrl } from '../../storage/file-bytes/signing.js'
import { type FieldError, validationFailed } from '../conventions.js'
import { type Field, type JsonSchema, reference, text } from '../framework/fields.js'
import type { ResourceDb } from '../framework/store.js'
import { list } from '../framework/structures.js'
import { shown } from '../framework/views.js'

/** One downloadable file of a product, as stored (`files` JSON). */
export interface ProductFile {
  file_id: string
  name: string
  content_type: string
  size: number
}

/**
 * The `files` list of a write: `[{file_id, name?}]`. The name defaults to the file's name;
 * content_type and size always come from the stored file (`resolveFiles`).
 */
export function productFiles(): Field {
  const files = list(
    {
      file_id: reference('fil', {
        required: true,
        description:
          'A file uploaded with purpose digital_product: required in a write; full view only in a read',
      }),
      name: text({ min: 1, max: 200 }),
    },
    {
      max: 20,
      noun: 'files',
      uniqueBy: 'file_id',
      public: true,
      default: [],
      shown: {
        content_type: shown.string(),
        size: shown.integer(),
        download_url: shown.string({
          description: 'Full view only: a signed link valid for about 15 minutes',
        }),
      },
    },
  )
  // Required in a write, but the public projection of a file omits it: one schema serves
  // both, so the requirement is said in words (the description), not in `required`.
  return {
    ...files,
    schema() {
      const { items, ...array } = files.schema() as { items: JsonSchema }
      const { required: _required, ...item } = items
      return { ...array, items: item }
    },
  }
}

/**
 * The files as shown: with a signed download link in the full view, only names, types and
 * sizes in the public one.
 */
export function filesView(column: string, full: boolean, deps: AppDeps, now: number) {
  const files = JSON.parse(column) as ProductFile[]
  return full
    ? files.map((f) => ({
        ...f,
        download_url: signedFileUrl(deps.config, f.file_id, f.name, now),
      }))
    : files.map(({ name, content_type, size }) => ({ name, content_type, size }))
}

/**
 * Fills each listed file's content type and size (and name) from the `files` table; a file
 * that does not exist, or was not uploaded for digital products, is a 422 naming it.
 */
export async function resolveFiles(db: ResourceDb, column: string): Promise<string> {
  const listed = JSON.parse(column) as Array<{ file_id: string; name?: string }>
  if (listed.length === 0) return column
  const rows = await db
    .selectFrom('files')
    .select(['id', 'filename', 'content_type', 'size', 'purpose'])
    .where(
      'id',
      'in',
      listed.map((f) => f.file_id),
    )
    .execute()
  const byId = new Map(rows.map((r) => [r.id, r]))
  const errors: FieldError[] = []
  const files: ProductFile[] = []
  listed.forEach((item, i) => {
    const file = byId.get(item.file_id)
    const field = `files[${i}].file_id`
    if (!file) errors.push({ field, code: 'not_found', message: 'no file with this id' })
    else if (file.purpose !== 'digital_product')
      errors.push({
        field,
        code: 'purpose',
        message: 'the file was not uploaded with purpose digital_product',
      })
    else
      files.push({
        file_id: item.file_id,
        name: item.name ?? file.filename,
        content_type: file.content_type,
        size: Number(file.size),
      })
  })
  if (errors.length > 0) throw validationFailed(errors)
  return JSON.stringify(files)
}
