import type { Config } from '../../config.js'
import { openDatabase } from '../../storage/database.js'
import { migrate } from '../../storage/migrate.js'
import type { Args } from '../args.js'

export async function migrateCommand(_args: Args, config: Config): Promise<number> {
  const database = openDatabase(config.database, config.databasePool)
  try {
    const applied = await migrate(database)
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'the schema is up to date')
    return 0
  } finally {
    await database.close()
  }
}
