import { DEMO_PASSWORD, loadDemo, TEAM } from '../../api/demo/demo.js'
import type { Config } from '../../config.js'
import { prepare } from '../../main.js'
import type { Args } from '../args.js'
import { quietLogger } from './quiet-logger.js'

/** Loads the demo school into an empty database; a database with courses is left alone. */
export async function seedDemoCommand(_args: Args, config: Config): Promise<number> {
  const deps = await prepare(config, { logger: quietLogger() })
  try {
    const seeded = await loadDemo(deps)
    console.log(
      seeded
        ? 'seeded the demo school "Brightframe Photography School" (see README: Demo school)'
        : 'the database already has courses: left as it is',
    )
    if (seeded) process.stdout.write(demoSignInBlock(config.issuer))
    return 0
  } finally {
    await deps.database.close()
  }
}

/** Which demo account to sign in with, and its password as the demo defines it. */
export function demoSignInBlock(issuer: string): string {
  const owner = TEAM.find((member) => member.role === 'owner' && member.status === 'active')
  if (!owner) throw new Error('the demo school has no active owner')
  return [
    '',
    `  Sign in at ${issuer}/login`,
    `  as ${owner.email} (${owner.name}, the school's owner)`,
    `  with password ${DEMO_PASSWORD} (every demo account has it; demo only)`,
    '',
    '',
  ].join('\n')
}
