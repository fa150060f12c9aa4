import { sql } from 'kysely'
import { type Client, toClient } from './clients.js'
import { compiledInsert, compiledQuery, compiledShape, execute } from './compiled-query.js'
import { cannotBeStored } from './lookup.js'
import type { Db } from './schema.js'
import type { AccessTokenTable, GrantTable, RefreshTokenTable } from './tables/oauth.js'
import { activeRow } from './users.js'

/** Tokens to store under one grant, optionally replacing (rotating) a refresh token. */
export interface TokenWrite {
  readonly grantId: string
  readonly access: AccessTokenTable
  readonly refresh: RefreshTokenTable | undefined
  readonly now: number
  /** Digest of the refresh token this replaces; nothing is stored unless it is unrotated. */
  readonly rotates?: string
}

/** A refresh token with its grant and whether the grant's person may act (`isActive`). */
export interface RefreshGrant {
  readonly token: RefreshTokenTable
  readonly grant: GrantTable
  readonly userActive: boolean
}

/**
 * Stores issued tokens, marks the rotated refresh token and records the grant's use as one
 * atomic step; false when the refresh token to rotate was already rotated. The token
 * endpoint is a hot path: on PostgreSQL this is a single statement (one round trip instead
 * of six for BEGIN, four statements and COMMIT); SQLite, in process, uses a transaction.
 */
export function storeTokens(
  db: Db,
  dialect: 'sqlite' | 'postgres',
  write: TokenWrite,
): Promise<boolean> {
  return dialect === 'postgres' ? storeInOneStatement(db, write) : storeInTransaction(db, write)
}

/** The grant outlives everything issued under it, so the sweep never takes a live token. */
function grantExpiry(write: TokenWrite): number {
  return Math.max(write.access.expires_at, write.refresh?.expires_at ?? 0)
}

/**
 * PostgreSQL's one statement, in four fixed shapes (with or without rotation, with or without
 * a refresh token), each compiled once; building and compiling it with Kysely at every
 * request was the largest part of Kysely's share of a refresh (npm run bench on PostgreSQL:
 * 1.56× → 1.48× the limit server's CPU). `v` holds {@link storeArguments}.
 */
function storeStatement(rotates: boolean, withRefresh: boolean, v: readonly unknown[]) {
  const [now, rotated, grantId, grantExpires] = v
  const [aDigest, aGrant, aClient, aUser, aScope, aAudience, aCreated, aExpires] = v.slice(4, 12)
  const [rDigest, rGrant, rClient, rScope, rCreated, rExpires] = v.slice(12)
  // Every data-modifying CTE runs exactly once; the inserts select from `go`, so they store
  // rows only when the rotation (if any) matched an unrotated token.
  const go = rotates
    ? sql`update refresh_tokens set rotated_at = ${now}::bigint
          where token_digest = ${rotated} and rotated_at is null returning 1`
    : sql`select 1`
  const refreshInsert = withRefresh
    ? sql`, new_refresh as (
        insert into refresh_tokens
          (token_digest, grant_id, client_id, scope, created_at, expires_at)
        select ${rDigest}::text, ${rGrant}::text, ${rClient}::text,
               ${rScope}::text, ${rCreated}::bigint, ${rExpires}::bigint
        from go)`
    : sql``
  return sql<{ id: string }>`
    with go as (${go}),
    new_access as (
      insert into access_tokens
        (token_digest, grant_id, client_id, user_id, scope, audience, created_at, expires_at)
      select ${aDigest}::text, ${aGrant}::text, ${aClient}::text,
             ${aUser}::text, ${aScope}::text, ${aAudience}::text,
             ${aCreated}::bigint, ${aExpires}::bigint
      from go
    )${refreshInsert}
    update grants
    set last_used_at = ${now}::bigint,
        expires_at = greatest(expires_at, ${grantExpires}::bigint)
    where id = ${grantId} and exists (select 1 from go)
    returning id`
}

/** The values of {@link storeStatement}, in its order. */
function storeArguments(write: TokenWrite): unknown[] {
  const { access: a, refresh: r } = write
  return [
    write.now,
    write.rotates,
    write.grantId,
    grantExpiry(write),
    a.token_digest,
    a.grant_id,
    a.client_id,
    a.user_id,
    a.scope,
    a.audience,
    a.created_at,
    a.expires_at,
    r?.token_digest,
    r?.grant_id,
    r?.client_id,
    r?.scope,
    r?.created_at,
    r?.expires_at,
  ]
}

const STORE_ARITY = 18

/** {@link storeStatement}'s shapes by [rotates][withRefresh]. */
const storeShapes = [false, true].map((rotates) =>
  [false, true].map((withRefresh) =>
    compiledShape<{ id: string }>(STORE_ARITY, (db, v) => ({
      compile: () => storeStatement(rotates, withRefresh, v).compile(db),
    })),
  ),
)

async function storeInOneStatement(db: Db, write: TokenWrite): Promise<boolean> {
  const rotates = write.rotates !== undefined
  const withRefresh = write.refresh !== undefined
  const v = storeArguments(write)
  const rows =
    (await storeShapes[Number(rotates)]?.[Number(withRefresh)]?.(db, v)) ??
    (await execute(db, storeStatement(rotates, withRefresh, v).compile(db)))
  return rows.length > 0
}

/** The statements of {@link storeInTransaction}, compiled once (token requests are hot). */
const rotateRefresh = compiledQuery((db: Db, digest: string, now: number) =>
  db
    .updateTable('refresh_tokens')
    .set({ rotated_at: now })
    .where('token_digest', '=', digest)
    .where('rotated_at', 'is', null)
    .returning('token_digest'),
)
const insertAccess = compiledInsert('access_tokens')
const insertRefresh = compiledInsert('refresh_tokens')
const touchGrant = compiledQuery((db: Db, grantId: string, now: number, expiry: number) =>
  db
    .updateTable('grants')
    .set({ last_used_at: now, expires_at: sql<number>`max(expires_at, ${expiry})` })
    .where('id', '=', grantId),
)

async function storeInTransaction(db: Db, write: TokenWrite): Promise<boolean> {
  const { access: a, refresh: r, now } = write
  return db.transaction().execute(async (trx) => {
    if (write.rotates !== undefined) {
      const rotated = await rotateRefresh(trx, write.rotates, now)
      if (rotated.length === 0) return false
    }
    await insertAccess(trx, a)
    if (r) await insertRefresh(trx, r)
    await touchGrant(trx, write.grantId, now, grantExpiry(write))
    return true
  })
}

/** The refresh grant's read, compiled once: every refresh starts with it. */
const refreshGrant = compiledQuery((db: Db, tokenDigest: string) =>
  db
    .selectFrom('refresh_tokens as r')
    .innerJoin('grants as g', 'g.id', 'r.grant_id')
    .innerJoin('users as u', 'u.id', 'g.user_id')
    .select([
      'r.token_digest',
      'r.grant_id',
      'r.client_id',
      'r.scope',
      'r.created_at',
      'r.expires_at',
      'r.rotated_at',
      'g.client_id as g_client_id',
      'g.user_id',
      'g.scope as g_scope',
      'g.resource',
      'g.created_at as g_created_at',
      'g.last_used_at',
      'g.expires_at as g_expires_at',
      'g.revoked_at',
      'u.disabled_at',
      'u.status',
    ])
    .where('r.token_digest', '=', tokenDigest),
)

/**
 * A refresh request's two reads as one: the client, and the refresh token with its grant and
 * person. The token side is left-joined, so a client is found whether or not the token is;
 * the token counts as found only with its grant and person, as in {@link findRefreshGrant}.
 */
const clientWithRefreshGrant = compiledQuery((db: Db, clientId: string, tokenDigest: string) =>
  db
    .selectFrom('clients as c')
    .leftJoin('refresh_tokens as r', (join) => join.on('r.token_digest', '=', tokenDigest))
    .leftJoin('grants as g', 'g.id', 'r.grant_id')
    .leftJoin('users as u', 'u.id', 'g.user_id')
    .selectAll('c')
    .select([
      'r.token_digest as r_token_digest',
      'r.grant_id as r_grant_id',
      'r.client_id as r_client_id',
      'r.scope as r_scope',
      'r.created_at as r_created_at',
      'r.expires_at as r_expires_at',
      'r.rotated_at as r_rotated_at',
      'g.id as g_id',
      'g.client_id as g_client_id',
      'g.user_id as g_user_id',
      'g.scope as g_scope',
      'g.resource as g_resource',
      'g.created_at as g_created_at',
      'g.last_used_at as g_last_used_at',
      'g.expires_at as g_expires_at',
      'g.revoked_at as g_revoked_at',
      'u.id as u_id',
      'u.disabled_at as u_disabled_at',
      'u.status as u_status',
    ])
    .where('c.client_id', '=', clientId),
)

/**
 * The client of a refresh request and the refresh token it presents, in one round trip (on
 * PostgreSQL each read is one). The caller authenticates the client before it looks at
 * the token, exactly as with two reads.
 */
export async function findClientWithRefreshGrant(
  db: Db,
  clientId: string,
  tokenDigest: string,
): Promise<ClientWithRefreshGrant> {
  if (cannotBeStored(clientId)) return { client: undefined, refresh: undefined }
  const [row] = await clientWithRefreshGrant(db, clientId, tokenDigest)
  return clientWithRefreshGrantOf(row)
}

/** A refresh request's client, and the refresh token it presents with its grant and person. */
export interface ClientWithRefreshGrant {
  readonly client: Client | undefined
  readonly refresh: RefreshGrant | undefined
}

/** The row of {@link clientWithRefreshGrant}, as what it found. */
export type ClientWithRefreshGrantRow = Awaited<ReturnType<typeof clientWithRefreshGrant>>[number]

/** {@link clientWithRefreshGrant}'s statement: the first step of the refresh in one statement. */
export const clientWithRefreshGrantStatement = clientWithRefreshGrant.statement

/** What a {@link clientWithRefreshGrant} row holds; the token only with its grant and person. */
export function clientWithRefreshGrantOf(
  row: ClientWithRefreshGrantRow | undefined,
): ClientWithRefreshGrant {
  if (!row) return { client: undefined, refresh: undefined }
  const client = toClient(row)
  if (
    row.r_token_digest === null ||
    row.r_grant_id === null ||
    row.r_client_id === null ||
    row.r_scope === null ||
    row.r_created_at === null ||
    row.r_expires_at === null ||
    row.g_id === null ||
    row.g_client_id === null ||
    row.g_user_id === null ||
    row.g_scope === null ||
    row.g_resource === null ||
    row.g_created_at === null ||
    row.g_expires_at === null ||
    row.u_id === null ||
    row.u_status === null
  ) {
    return { client, refresh: undefined }
  }
  return {
    client,
    refresh: {
      token: {
        token_digest: row.r_token_digest,
        grant_id: row.r_grant_id,
        client_id: row.r_client_id,
        scope: row.r_scope,
        created_at: row.r_created_at,
        expires_at: row.r_expires_at,
        rotated_at: row.r_rotated_at,
      },
      grant: {
        id: row.g_id,
        client_id: row.g_client_id,
        user_id: row.g_user_id,
        scope: row.g_scope,
        resource: row.g_resource,
        created_at: row.g_created_at,
        last_used_at: row.g_last_used_at,
        expires_at: row.g_expires_at,
        revoked_at: row.g_revoked_at,
      },
      userActive: activeRow({ status: row.u_status, disabled_at: row.u_disabled_at }),
    },
  }
}

/** One read: the refresh token, its grant, and whether the grant's person is active. */
export async function findRefreshGrant(
  db: Db,
  tokenDigest: string,
): Promise<RefreshGrant | undefined> {
  const [row] = await refreshGrant(db, tokenDigest)
  if (!row) return undefined
  return {
    token: {
      token_digest: row.token_digest,
      grant_id: row.grant_id,
      client_id: row.client_id,
      scope: row.scope,
      created_at: row.created_at,
      expires_at: row.expires_at,
      rotated_at: row.rotated_at,
    },
    grant: {
      id: row.grant_id,
      client_id: row.g_client_id,
      user_id: row.user_id,
      scope: row.g_scope,
      resource: row.resource,
      created_at: row.g_created_at,
      last_used_at: row.last_used_at,
      expires_at: row.g_expires_at,
      revoked_at: row.revoked_at,
    },
    userActive: activeRow(row),
  }
}
