import { compiledInsert, compiledQuery } from './compiled-query.js'
import { cannotBeStored } from './lookup.js'
import { frozen, ReadCache } from './read-cache.js'
import type { Db } from './schema.js'
import type { ClientTable } from './tables/oauth.js'

/** A registered client, as the protocol core sees it. */
export interface Client {
  readonly clientId: string
  readonly kind: ClientTable['kind']
  readonly clientName: string | undefined
  readonly secretDigest: string | undefined
  readonly tokenEndpointAuthMethod: ClientTable['token_endpoint_auth_method']
  readonly applicationType: string
  readonly redirectUris: readonly string[]
  readonly grantTypes: readonly string[]
  readonly responseTypes: readonly string[]
  readonly scope: string | undefined
  readonly idTokenSignedResponseAlg: ClientTable['id_token_signed_response_alg']
  readonly createdAt: number
  readonly lastUsedAt: number | undefined
}

export function toClient(row: ClientTable): Client {
  return {
    clientId: row.client_id,
    kind: row.kind,
    clientName: row.client_name ?? undefined,
    secretDigest: row.secret_digest ?? undefined,
    tokenEndpointAuthMethod: row.token_endpoint_auth_method,
    applicationType: row.application_type,
    redirectUris: JSON.parse(row.redirect_uris) as string[],
    grantTypes: JSON.parse(row.grant_types) as string[],
    responseTypes: JSON.parse(row.response_types) as string[],
    scope: row.scope ?? undefined,
    idTokenSignedResponseAlg: row.id_token_signed_response_alg,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at ?? undefined,
  }
}

/** How fresh a client's recorded last use must be before it is written again. */
const TOUCH_PRECISION_MS = 60_000

/** Compiled once: every token, introspection and revocation request looks its client up. */
const clientById = compiledQuery((db: Db, clientId: string) =>
  db.selectFrom('clients').selectAll().where('client_id', '=', clientId),
)

/** Compiled once: dynamic registration is open to anyone and stores a client each time. */
const insertClient = compiledInsert('clients')

/** Clients kept in memory at most. */
const CLIENTS_CACHED = 10_000

export function createClientStore(db: Db, dataVersion?: () => number | undefined) {
  const cache = new ReadCache<Client>(CLIENTS_CACHED)
  return {
    /** On SQLite a client found is kept in memory until the next write (see read-cache.ts). */
    async find(clientId: string): Promise<Client | undefined> {
      if (cannotBeStored(clientId)) return undefined
      const version = dataVersion?.()
      const kept = version === undefined ? undefined : cache.get(clientId, version)
      if (kept) return kept
      const [row] = await clientById(db, clientId)
      if (!row) return undefined
      const client = toClient(row)
      if (version !== undefined) cache.set(clientId, version, frozen(client))
      return client
    },
    async insert(client: Client): Promise<void> {
      await insertClient(db, {
        client_id: client.clientId,
        kind: client.kind,
        client_name: client.clientName ?? null,
        secret_digest: client.secretDigest ?? null,
        token_endpoint_auth_method: client.tokenEndpointAuthMethod,
        application_type: client.applicationType,
        redirect_uris: JSON.stringify(client.redirectUris),
        grant_types: JSON.stringify(client.grantTypes),
        response_types: JSON.stringify(client.responseTypes),
        scope: client.scope ?? null,
        id_token_signed_response_alg: client.idTokenSignedResponseAlg,
        created_at: client.createdAt,
        last_used_at: client.lastUsedAt ?? null,
      })
    },
    /**
     * Stores or refreshes the client described by a valid Client ID Metadata Document, so
     * that grants, codes and consents can refer to it. The row is a copy for those references
     * and for the connected-apps page: the document itself is what is checked at every use.
     */
    async upsertMetadataDocumentClient(client: Client): Promise<void> {
      const values = {
        client_name: client.clientName ?? null,
        redirect_uris: JSON.stringify(client.redirectUris),
        grant_types: JSON.stringify(client.grantTypes),
        id_token_signed_response_alg: client.idTokenSignedResponseAlg,
      }
      await db
        .insertInto('clients')
        .values({
          ...values,
          client_id: client.clientId,
          kind: 'metadata_document',
          secret_digest: null,
          token_endpoint_auth_method: 'none',
          application_type: client.applicationType,
          response_types: JSON.stringify(client.responseTypes),
          scope: null,
          created_at: client.createdAt,
          last_used_at: null,
        })
        .onConflict((oc) => oc.column('client_id').doUpdateSet(values))
        .execute()
    },
    /**
     * Records that the client was just used (shown to the nearest minute). A client signing
     * people in concurrently would otherwise write its row on every authorization: on
     * PostgreSQL each such update waited for the previous one's commit (npm run bench).
     */
    async touch(client: Client, now: number): Promise<void> {
      if (client.lastUsedAt !== undefined && now - client.lastUsedAt < TOUCH_PRECISION_MS) return
      await db
        .updateTable('clients')
        .set({ last_used_at: now })
        .where('client_id', '=', client.clientId)
        .where((eb) =>
          eb.or([
            eb('last_used_at', 'is', null),
            eb('last_used_at', '<=', now - TOUCH_PRECISION_MS),
          ]),
        )
        .execute()
    },
    async list(kind?: ClientTable['kind']): Promise<Client[]> {
      let query = db.selectFrom('clients').selectAll().orderBy('created_at').orderBy('client_id')
      if (kind) query = query.where('kind', '=', kind)
      return (await query.execute()).map(toClient)
    },
    /**
     * Deletes self-registered clients created before `before` that never completed an
     * authorization (no code was ever issued to them: no last use, no grant), unless one is
     * in the middle of its first authorization at `now`. Open registration thus cannot
     * fill the database with clients nobody uses. The copies of Client ID Metadata Document
     * clients go under the same rule when they have no grant and were not used since
     * `before`: any `https:` URL someone presents leaves one. Returns how many went.
     */
    async sweepUnused(before: number, now: number): Promise<number> {
      const result = await db
        .deleteFrom('clients')
        .where((eb) =>
          eb.or([
            eb.and([eb('kind', '=', 'self_registered'), eb('last_used_at', 'is', null)]),
            // A document client's row is only a copy, written again at its next use.
            eb.and([
              eb('kind', '=', 'metadata_document'),
              eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', before)]),
            ]),
          ]),
        )
        .where('created_at', '<', before)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('grants')
                .select('grants.id')
                .whereRef('grants.client_id', '=', 'clients.client_id'),
            ),
          ),
        )
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('authorization_requests')
                .select('authorization_requests.id_digest')
                .whereRef('authorization_requests.client_id', '=', 'clients.client_id')
                .where('authorization_requests.expires_at', '>', now),
            ),
          ),
        )
        .executeTakeFirst()
      return Number(result.numDeletedRows)
    },
    /** Deletes a client; true when one was there. */
    async delete(clientId: string, kind?: ClientTable['kind']): Promise<boolean> {
      let query = db.deleteFrom('clients').where('client_id', '=', clientId)
      if (kind) query = query.where('kind', '=', kind)
      const result = await query.executeTakeFirst()
      return Number(result.numDeletedRows) > 0
    },
  }
}

export type ClientStore = ReturnType<typeof createClientStore>
