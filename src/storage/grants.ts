import { type CompiledQuery, sql } from 'kysely'
import type { Client } from './clients.js'
import { compiledInsert, compiledQuery, execute, preparedOnPostgres } from './compiled-query.js'
import { type GrantListing, listLiveGrants } from './grant-listings.js'
import {
  findClientWithRefreshGrant,
  findRefreshGrant,
  type RefreshGrant,
  storeTokens,
} from './grant-tokens.js'
import { createLiveTokenReader, type LiveAccessToken, type LiveRead } from './live-access-tokens.js'
import { cannotBeStored } from './lookup.js'
import {
  type RefreshRotation,
  type RefreshRotationOutcome,
  rotateRefreshInOneStatement,
} from './refresh-rotation.js'
import type { Db } from './schema.js'
import type {
  AccessTokenTable,
  AuthorizationCodeTable,
  GrantTable,
  RefreshTokenTable,
} from './tables/oauth.js'
import { activeRow } from './users.js'

export type GrantRow = GrantTable
export type CodeRow = AuthorizationCodeTable
export type RefreshTokenRow = RefreshTokenTable
export type AccessTokenRow = AccessTokenTable

/** What redeeming a code found: the code, a replay of a redeemed one, or nothing. */
export type CodeRedemption =
  | { readonly status: 'redeemed'; readonly code: CodeRow }
  | { readonly status: 'replayed'; readonly code: CodeRow }
  | { readonly status: 'unknown' }

// Compiled once: every authorization approved stores a grant and its code.
const insertGrant = compiledInsert('grants')
const insertCode = compiledInsert('authorization_codes')

/** Marks a code used if it was not yet; compiled once, as every code exchange starts with it. */
const consumeCode = compiledQuery((db: Db, codeDigest: string, now: number) =>
  db
    .updateTable('authorization_codes')
    .set({ consumed_at: now })
    .where('code_digest', '=', codeDigest)
    .where('consumed_at', 'is', null)
    .returningAll(),
)

/** PostgreSQL: the grant and its code in one statement, prepared once per connection. */
function grantWithCodeStatement(g: GrantRow, c: CodeRow) {
  return sql`
    with new_grant as (
      insert into grants
        (id, client_id, user_id, scope, resource, created_at, last_used_at, expires_at,
         revoked_at, redirect_uri)
      values (${g.id}, ${g.client_id}, ${g.user_id}, ${g.scope}, ${g.resource},
              ${g.created_at}::bigint, ${g.last_used_at}::bigint, ${g.expires_at}::bigint,
              ${g.revoked_at}::bigint, ${g.redirect_uri ?? null}::text)
    )
    insert into authorization_codes
      (code_digest, grant_id, client_id, user_id, redirect_uri, code_challenge, scope,
       resource, nonce, auth_time, created_at, expires_at, consumed_at)
    values (${c.code_digest}, ${c.grant_id}, ${c.client_id}, ${c.user_id}, ${c.redirect_uri},
            ${c.code_challenge}, ${c.scope}, ${c.resource}, ${c.nonce}::text,
            ${c.auth_time}::bigint, ${c.created_at}::bigint, ${c.expires_at}::bigint,
            ${c.consumed_at}::bigint)`
}

/**
 * Grants and everything issued under them: codes, refresh and access tokens. A grant is one
 * person's authorization of one client; revoking it ends every code and token issued under it.
 */
export function createGrantStore(
  db: Db,
  dialect: 'sqlite' | 'postgres',
  dataVersion?: () => number | undefined,
) {
  const readLive = createLiveTokenReader(db, dataVersion)

  return {
    /**
     * Stores a new grant and its authorization code together: on PostgreSQL in one statement
     * (one round trip instead of four for BEGIN, two inserts and COMMIT), on SQLite in a
     * transaction.
     */
    async insertGrantWithCode(grant: GrantRow, code: CodeRow): Promise<void> {
      if (dialect === 'postgres') {
        const statement = grantWithCodeStatement(grant, code).compile(db)
        preparedOnPostgres(statement.sql)
        await execute(db, statement)
        return
      }
      await db.transaction().execute(async (trx) => {
        await insertGrant(trx, grant)
        await insertCode(trx, code)
      })
    },

    /**
     * Marks a code used, atomically: of two concurrent redemptions exactly one sees
     * `redeemed`; the other, and every later one, sees `replayed`.
     */
    async redeemCode(codeDigest: string, now: number): Promise<CodeRedemption> {
      const [code] = await consumeCode(db, codeDigest, now)
      if (code) return { status: 'redeemed', code }
      const used = await db
        .selectFrom('authorization_codes')
        .selectAll()
        .where('code_digest', '=', codeDigest)
        .executeTakeFirst()
      return used ? { status: 'replayed', code: used } : { status: 'unknown' }
    },

    /**
     * What stands in the way of a grant's use right now: its revocation, or its person no
     * longer active (`isActive`); undefined when nothing does. A code's redemption asks,
     * as the code was approved a moment before.
     */
    async grantObstacle(grantId: string): Promise<'grant_revoked' | 'user_inactive' | undefined> {
      const row = await db
        .selectFrom('grants as g')
        .innerJoin('users as u', 'u.id', 'g.user_id')
        .select(['g.revoked_at', 'u.status', 'u.disabled_at'])
        .where('g.id', '=', grantId)
        .executeTakeFirst()
      if (!row || row.revoked_at !== null) return 'grant_revoked'
      return activeRow(row) ? undefined : 'user_inactive'
    },

    async findGrant(id: string): Promise<GrantRow | undefined> {
      return db.selectFrom('grants').selectAll().where('id', '=', id).executeTakeFirst()
    },

    /**
     * Stores newly issued tokens and records the grant's use, atomically. With `rotates`, the
     * refresh token of that digest is marked rotated in the same step and nothing is stored
     * unless it was still unrotated: false means another request rotated it first.
     */
    async insertTokens(
      grantId: string,
      access: AccessTokenRow,
      refresh: RefreshTokenRow | undefined,
      now: number,
      rotates?: string,
    ): Promise<boolean> {
      return storeTokens(db, dialect, { grantId, access, refresh, now, rotates })
    },

    /**
     * Ends a grant and deletes every token issued under it, and forgets the consent its
     * person remembered for its client: a revoked app stays revoked, its next authorization
     * request asks the person again. Idempotent.
     */
    async revokeGrant(grantId: string, now: number): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const owner = await trx
          .selectFrom('grants')
          .select(['user_id', 'client_id'])
          .where('id', '=', grantId)
          .executeTakeFirst()
        if (owner)
          await trx
            .deleteFrom('consents')
            .where('user_id', '=', owner.user_id)
            .where('client_id', '=', owner.client_id)
            .execute()
        await trx
          .updateTable('grants')
          .set({ revoked_at: now })
          .where('id', '=', grantId)
          .where('revoked_at', 'is', null)
          .execute()
        await trx.deleteFrom('access_tokens').where('grant_id', '=', grantId).execute()
        await trx.deleteFrom('refresh_tokens').where('grant_id', '=', grantId).execute()
      })
    },

    /** Deletes one access token. */
    async deleteAccessToken(tokenDigest: string): Promise<void> {
      await db.deleteFrom('access_tokens').where('token_digest', '=', tokenDigest).execute()
    },

    /** The refresh token with its grant and the state of the grant's person, in one read. */
    async findRefreshGrant(tokenDigest: string): Promise<RefreshGrant | undefined> {
      return findRefreshGrant(db, tokenDigest)
    },

    /**
     * A refresh request's client and refresh token in one read: the token endpoint's hot
     * path, where two reads were two round trips on PostgreSQL.
     */
    async findClientWithRefreshGrant(
      clientId: string,
      tokenDigest: string,
    ): Promise<{ client: Client | undefined; refresh: RefreshGrant | undefined }> {
      return findClientWithRefreshGrant(db, clientId, tokenDigest)
    },

    /**
     * PostgreSQL only (undefined on SQLite, in process, where a round trip costs nothing):
     * a public client's refresh read, checked, rotated and stored in one statement; what it
     * read comes back either way (refresh-rotation.ts).
     */
    rotateRefreshInOneStatement:
      dialect === 'postgres'
        ? (rotation: RefreshRotation): Promise<RefreshRotationOutcome> =>
            rotateRefreshInOneStatement(db, rotation)
        : undefined,

    async findAccessToken(tokenDigest: string): Promise<AccessTokenRow | undefined> {
      return db
        .selectFrom('access_tokens')
        .selectAll()
        .where('token_digest', '=', tokenDigest)
        .executeTakeFirst()
    },

    async findRefreshToken(tokenDigest: string): Promise<RefreshTokenRow | undefined> {
      return db
        .selectFrom('refresh_tokens')
        .selectAll()
        .where('token_digest', '=', tokenDigest)
        .executeTakeFirst()
    },

    /**
     * The access token with this digest if it is live: unexpired, its grant not revoked,
     * its person active. One indexed read joining three primary keys: the hot path of
     * every API call. On SQLite a token found live is kept in memory until the next write
     * (see read-cache.ts): between writes, only its expiry can change what this answers.
     */
    async findLiveAccessToken(
      tokenDigest: string,
      now: number,
    ): Promise<LiveAccessToken | undefined> {
      return (await readLive(tokenDigest, now)).live
    },

    /**
     * {@link findLiveAccessToken} and, in the same statement, the `companion` read: at most
     * one row that the request goes on to read whatever the token (the record an API call
     * names). One round trip instead of two on PostgreSQL, where every API call checks its
     * token in the database. The companion's row is null when the read found nothing, and
     * undefined when it was not read: for a token SQLite keeps in memory (see above), which
     * costs less than any read; the caller then reads it itself.
     */
    findLiveAccessTokenWith<Row extends object>(
      tokenDigest: string,
      now: number,
      companion: () => CompiledQuery<Row>,
    ): Promise<LiveRead<Row>> {
      return readLive(tokenDigest, now, companion)
    },

    /**
     * Live grants (not revoked, not expired) with their client and person, newest first:
     * one person's, or with no user id every grant at the school.
     */
    async listLive(now: number, userId?: string): Promise<GrantListing[]> {
      return listLiveGrants(db, now, userId)
    },

    /** Ids of the live grants of a client, of a person, or of both. */
    async liveGrantIds(filter: {
      clientId?: string
      userId?: string
      grantId?: string
    }): Promise<string[]> {
      if (
        [filter.clientId, filter.userId, filter.grantId].some(
          (v) => v !== undefined && cannotBeStored(v),
        )
      )
        return []
      let query = db.selectFrom('grants').select('id').where('revoked_at', 'is', null)
      if (filter.grantId !== undefined) query = query.where('id', '=', filter.grantId)
      if (filter.clientId !== undefined) query = query.where('client_id', '=', filter.clientId)
      if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId)
      return (await query.execute()).map((r) => r.id)
    },

    /** Deletes what can no longer be used: expired codes, tokens, and grants long dead. */
    async sweep(now: number): Promise<void> {
      await db
        .deleteFrom('authorization_codes')
        .where('expires_at', '<=', now - 3_600_000)
        .execute()
      await db.deleteFrom('access_tokens').where('expires_at', '<=', now).execute()
      await db.deleteFrom('refresh_tokens').where('expires_at', '<=', now).execute()
      await db
        .deleteFrom('grants')
        .where((eb) =>
          eb.or([eb('expires_at', '<=', now), eb('revoked_at', '<=', now - 86_400_000)]),
        )
        .execute()
    },
  }
}

export type GrantStore = ReturnType<typeof createGrantStore>
