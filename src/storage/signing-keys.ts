import type { Db } from './schema.js'
import type { SigningKeyTable } from './tables/oauth.js'

export type SigningKeyRow = SigningKeyTable

/** Persistence of signing keys: shared by every instance on one database. */
export function createSigningKeyStore(db: Db) {
  return {
    /** Keys that are active or were retired after `retiredSince`, newest first. */
    listPublished(retiredSince: number): Promise<SigningKeyRow[]> {
      return db
        .selectFrom('signing_keys')
        .selectAll()
        .where((eb) => eb.or([eb('retired_at', 'is', null), eb('retired_at', '>', retiredSince)]))
        .orderBy('created_at', 'desc')
        .orderBy('kid')
        .execute()
    },
    listAll(): Promise<SigningKeyRow[]> {
      return db.selectFrom('signing_keys').selectAll().orderBy('created_at', 'desc').execute()
    },
    async insert(row: SigningKeyRow): Promise<void> {
      await db.insertInto('signing_keys').values(row).execute()
    },
    async retireActive(alg: SigningKeyRow['alg'], now: number): Promise<void> {
      await db
        .updateTable('signing_keys')
        .set({ retired_at: now })
        .where('alg', '=', alg)
        .where('retired_at', 'is', null)
        .execute()
    },
  }
}

export type SigningKeyStore = ReturnType<typeof createSigningKeyStore>
