import { cannotBeStored } from './lookup.js'
import type { Db } from './schema.js'

/** Client ID Metadata Document URLs an operator has reviewed (`portico integrations trust`). */
export function createTrustedClientDocumentStore(db: Db) {
  return {
    async isTrusted(url: string): Promise<boolean> {
      if (cannotBeStored(url)) return false
      const row = await db
        .selectFrom('trusted_client_documents')
        .select('url')
        .where('url', '=', url)
        .executeTakeFirst()
      return row !== undefined
    },
    /** Trusts a URL; false when it was trusted already. */
    async trust(url: string, now: number): Promise<boolean> {
      const result = await db
        .insertInto('trusted_client_documents')
        .values({ url, created_at: now })
        .onConflict((oc) => oc.column('url').doNothing())
        .executeTakeFirst()
      return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0
    },
    /** Stops trusting a URL; false when it was not trusted. */
    async untrust(url: string): Promise<boolean> {
      const result = await db
        .deleteFrom('trusted_client_documents')
        .where('url', '=', url)
        .executeTakeFirst()
      return Number(result.numDeletedRows) > 0
    },
    async list(): Promise<{ url: string; createdAt: number }[]> {
      const rows = await db
        .selectFrom('trusted_client_documents')
        .selectAll()
        .orderBy('created_at')
        .orderBy('url')
        .execute()
      return rows.map((r) => ({ url: r.url, createdAt: Number(r.created_at) }))
    },
  }
}

export type TrustedClientDocumentStore = ReturnType<typeof createTrustedClientDocumentStore>
