import { validationFailed } from '../conventions.js'
import type { ResourceDb } from './store.js'

/**
 * Refuses a write whose `field` names a row that does not exist in `table`, with a 422
 * naming the field, before a foreign key would turn it into a less helpful error.
 */
export async function requireReference(
  db: ResourceDb,
  table: string,
  id: string,
  field: string,
  noun: string,
): Promise<void> {
  const row = await db.selectFrom(table).select('id').where('id', '=', id).executeTakeFirst()
  if (!row)
    throw validationFailed([{ field, code: 'not_found', message: `no ${noun} with this id` }])
}
