import type { Config } from '../../config.js'
import { prepare } from '../../main.js'
import { rotateSigningKeys } from '../../oauth/keys.js'
import { loadKeyEncryptionKey } from '../../platform/key-encryption.js'
import { withExclusiveLock } from '../../storage/database.js'
import { createSigningKeyStore } from '../../storage/signing-keys.js'
import type { Args } from '../args.js'
import { quietLogger } from './quiet-logger.js'

export async function keysRotate(_args: Args, config: Config): Promise<number> {
  const deps = await prepare(config, { logger: quietLogger() })
  try {
    const now = deps.clock.now()
    const key = loadKeyEncryptionKey(config)
    const rows = await withExclusiveLock(deps.database, (db) =>
      rotateSigningKeys(createSigningKeyStore(db), key, now),
    )
    for (const row of rows) console.log(`active ${row.alg} key: ${row.kid}`)
    console.log('the previous keys stay published until nothing they signed can still be valid')
    return 0
  } finally {
    await deps.database.close()
  }
}

export async function keysList(_args: Args, config: Config): Promise<number> {
  const deps = await prepare(config, { logger: quietLogger() })
  try {
    const retention = (config.lifetimes.idToken + 300) * 1000
    const now = deps.clock.now()
    console.log(`${'kid'.padEnd(44)} ${'alg'.padEnd(6)} ${'state'.padEnd(10)} created`)
    for (const row of await deps.signingKeys.listAll()) {
      const state =
        row.retired_at === null
          ? 'active'
          : row.retired_at > now - retention
            ? 'retired'
            : 'expired'
      console.log(
        `${row.kid.padEnd(44)} ${row.alg.padEnd(6)} ${state.padEnd(10)} ${new Date(row.created_at).toISOString()}`,
      )
    }
    return 0
  } finally {
    await deps.database.close()
  }
}
