import { seedDemo } from '../../api/seed/seed-demo.js'
import type { Config } from '../../config.js'
import { prepare } from '../../main.js'
import type { Args } from '../args.js'
import { quietLogger } from './quiet-logger.js'

/** Loads the demo school into an empty database; a database with courses is left alone. */
export async function seedDemoCommand(_args: Args, config: Config): Promise<number> {
  const deps = await prepare(config, { logger: quietLogger() })
  try {
    const seeded = await seedDemo(deps)
    console.log(
      seeded
        ? 'seeded the demo school "Brightframe Photography School" (see README: Demo school)'
        : 'the database already has courses: left as it is',
    )
    return 0
  } finally {
    await deps.database.close()
  }
}
