import type { ResourceDb } from './store.js'

/** The shape of every slug: lower-case words joined by hyphens. */
export const SLUG = {
  pattern: /^[a-z0-9]+(?:-[a-z0-9]+)*$/,
  patternHint: 'lower-case letters, digits and single hyphens',
} as const

/** A slug from a title: ASCII, lower-case, hyphenated, at most 60 characters. */
export function slugify(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '')
  return slug || 'untitled'
}

/** The first of `slug`, `slug-2`, `slug-3` … that no row of `table` holds. */
export async function uniqueSlug(db: ResourceDb, table: string, title: string): Promise<string> {
  const base = slugify(title)
  const taken = new Set(
    (
      await db
        .selectFrom(table)
        .select('slug')
        .where((eb) => eb.or([eb('slug', '=', base), eb('slug', 'like', `${base}-%`)]))
        .execute()
    ).map((r) => r.slug),
  )
  if (!taken.has(base)) return base
  for (let n = 2; ; n += 1) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`
}
