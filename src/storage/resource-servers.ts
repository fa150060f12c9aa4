import { cannotBeStored } from './lookup.js'
import type { Db } from './schema.js'

export interface ResourceServer {
  readonly id: string
  readonly identifier: string
  readonly name: string
  readonly secretDigest: string
  readonly createdAt: number
}

/** APIs other than Portico's own that an operator put behind Portico (RFC 8707 audiences). */
export function createResourceServerStore(db: Db) {
  const toServer = (row: {
    id: string
    identifier: string
    name: string
    secret_digest: string
    created_at: number
  }): ResourceServer => ({
    id: row.id,
    identifier: row.identifier,
    name: row.name,
    secretDigest: row.secret_digest,
    createdAt: row.created_at,
  })
  return {
    async findByIdentifier(identifier: string): Promise<ResourceServer | undefined> {
      if (cannotBeStored(identifier)) return undefined
      const row = await db
        .selectFrom('resource_servers')
        .selectAll()
        .where('identifier', '=', identifier)
        .executeTakeFirst()
      return row && toServer(row)
    },
    async findById(id: string): Promise<ResourceServer | undefined> {
      if (cannotBeStored(id)) return undefined
      const row = await db
        .selectFrom('resource_servers')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst()
      return row && toServer(row)
    },
    async insert(server: ResourceServer): Promise<void> {
      await db
        .insertInto('resource_servers')
        .values({
          id: server.id,
          identifier: server.identifier,
          name: server.name,
          secret_digest: server.secretDigest,
          created_at: server.createdAt,
        })
        .execute()
    },
    async list(): Promise<ResourceServer[]> {
      return (
        await db.selectFrom('resource_servers').selectAll().orderBy('created_at').execute()
      ).map(toServer)
    },
    async delete(id: string): Promise<boolean> {
      const result = await db.deleteFrom('resource_servers').where('id', '=', id).executeTakeFirst()
      return Number(result.numDeletedRows) > 0
    },
  }
}

export type ResourceServerStore = ReturnType<typeof createResourceServerStore>
