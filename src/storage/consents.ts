import type { Db } from './schema.js'

/** Consent remembered for registered integrations (self-registered tools are asked every time). */
export function createConsentStore(db: Db) {
  return {
    async find(
      userId: string,
      clientId: string,
    ): Promise<{ scope: string; resource: string } | undefined> {
      return db
        .selectFrom('consents')
        .select(['scope', 'resource'])
        .where('user_id', '=', userId)
        .where('client_id', '=', clientId)
        .executeTakeFirst()
    },
    async save(input: {
      userId: string
      clientId: string
      scope: string
      resource: string
      now: number
    }): Promise<void> {
      await db
        .insertInto('consents')
        .values({
          user_id: input.userId,
          client_id: input.clientId,
          scope: input.scope,
          resource: input.resource,
          created_at: input.now,
        })
        .onConflict((oc) =>
          oc
            .columns(['user_id', 'client_id'])
            .doUpdateSet({ scope: input.scope, resource: input.resource, created_at: input.now }),
        )
        .execute()
    },
    async delete(userId: string, clientId: string): Promise<void> {
      await db
        .deleteFrom('consents')
        .where('user_id', '=', userId)
        .where('client_id', '=', clientId)
        .execute()
    },
  }
}

export type ConsentStore = ReturnType<typeof createConsentStore>
