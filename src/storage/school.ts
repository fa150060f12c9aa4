import type { Db } from './schema.js'

/** The school this installation serves (one per installation). */
export function createSchoolStore(db: Db) {
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
      logoUrl: string | undefined
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
        logoUrl: appearance?.logo_url ?? undefined,
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
