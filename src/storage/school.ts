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
  }
}

export type SchoolStore = ReturnType<typeof createSchoolStore>
