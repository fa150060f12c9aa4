import type { AppDeps } from '../../app-deps.js'
import { byName } from '../framework/resource-db.js'

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
export async function referencesOf(deps: AppDeps, id: string): Promise<string[]> {
  const db = byName(deps.database.db)
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
        found.push(`${table}/${row.id}`)
  }
  return found
}
