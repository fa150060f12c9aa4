import { servedInline } from './file-bytes/policy.js'
import { filePath } from './file-bytes/signing.js'
import type { Db } from './schema.js'

/**
 * The school this installation serves (one per installation). `issuer` is where Portico
 * serves its files: a logo there is one of its own files.
 */
export function createSchoolStore(db: Db, issuer: string) {
  const ownFiles = `${issuer}/files/`

  /**
   * The logo as the pages show it: a file of Portico's own storage (its URL at the issuer)
   * becomes `ownLogo`, its path, only when that file exists, is public and is an image, so
   * the page never points an image at a file that is not there; any other URL stays
   * `logoUrl`, for the page to show in a way that cannot break (src/views/layout.ts).
   */
  async function logo(url: string | null | undefined) {
    if (!url) return {}
    if (!url.startsWith(ownFiles)) return { logoUrl: url }
    const id = url.slice(ownFiles.length).split('/')[0] ?? ''
    const file = await db
      .selectFrom('files')
      .select(['id', 'filename', 'visibility', 'content_type'])
      .where('id', '=', id)
      .executeTakeFirst()
    // An image type is one an upload sniffed as PNG, JPEG, GIF or WebP (served inline).
    if (file?.visibility !== 'public') return {}
    if (!file.content_type.startsWith('image/') || !servedInline(file.content_type)) return {}
    return { ownLogo: filePath(file.id, file.filename) }
  }

  return {
    async name(): Promise<string> {
      const row = await db
        .selectFrom('school')
        .select('name')
        .where('id', '=', 'school')
        .executeTakeFirst()
      return row?.name ?? 'Portico'
    },

    /** The school's name with its logo and primary colour, for the header of every page. */
    async brand(): Promise<{
      name: string
      logoUrl?: string | undefined
      ownLogo?: string | undefined
      color: string | undefined
    }> {
      const [school, appearance] = await Promise.all([
        db.selectFrom('school').select('name').where('id', '=', 'school').executeTakeFirst(),
        db
          .selectFrom('appearance')
          .select(['logo_url', 'colors'])
          .where('id', '=', 'appearance')
          .executeTakeFirst(),
      ])
      return {
        name: school?.name ?? 'Portico',
        ...(await logo(appearance?.logo_url)),
        color: primaryColor(appearance?.colors ?? null),
      }
    },
  }
}

export type SchoolStore = ReturnType<typeof createSchoolStore>

/** `colors.primary` of the stored appearance (a JSON column), when it is a valid hex colour. */
function primaryColor(colors: string | null): string | undefined {
  if (!colors) return undefined
  try {
    const parsed: unknown = JSON.parse(colors)
    const primary =
      parsed && typeof parsed === 'object' && 'primary' in parsed ? parsed.primary : undefined
    return typeof primary === 'string' && /^#[0-9A-Fa-f]{6}$/.test(primary) ? primary : undefined
  } catch {
    return undefined
  }
}
