import type { CompiledQuery } from 'kysely'
import { compiledQuery, pairedRead } from './compiled-query.js'
import { frozen, ReadCache } from './read-cache.js'
import type { Db } from './schema.js'
import type { AccessTokenTable } from './tables/oauth.js'
import { toUser, USER_COLUMNS, type User } from './users.js'

/**
 * The bearer check's read: the access token of a digest if it is live right now, with its
 * person. It runs on every API call, so it is one compiled statement, and on SQLite a token
 * found live is kept in memory until the next write.
 */

/** An access token that is live right now (its grant unrevoked), with its person. */
export interface LiveAccessToken {
  readonly token: AccessTokenTable
  readonly user: User
}

/**
 * The bearer check's read, compiled once: it runs on every API call. Only the columns a
 * caller is made of (each one more costs the PostgreSQL driver a field to set up a read,
 * npm run bench, profiled): the grant is only a condition.
 */
const liveAccessToken = compiledQuery((db: Db, tokenDigest: string, now: number) =>
  db
    .selectFrom('access_tokens as t')
    .innerJoin('grants as g', 'g.id', 't.grant_id')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select(USER_COLUMNS.map((column) => `u.${column}` as const))
    .select([
      't.grant_id',
      't.client_id',
      't.scope',
      't.audience',
      't.created_at as t_created_at',
      't.expires_at as t_expires_at',
    ])
    .where('t.token_digest', '=', tokenDigest)
    .where('t.expires_at', '>', now)
    .where('g.revoked_at', 'is', null)
    .where('u.status', '=', 'active')
    .where('u.disabled_at', 'is', null),
)
type LiveTokenRow = Awaited<ReturnType<typeof liveAccessToken>>[number]
/** The names of the bearer check's columns, as its rows hold them. */
const LIVE_TOKEN_NAMES: readonly (keyof LiveTokenRow & string)[] = [
  ...USER_COLUMNS,
  'grant_id',
  'client_id',
  'scope',
  'audience',
  't_created_at',
  't_expires_at',
]

/**
 * Whether a live token is one SQLite keeps in memory (frozen): the same object at every
 * request until a write ends it, so what is made from it may be kept beside it.
 */
export const keptInMemory = (live: LiveAccessToken): boolean => Object.isFrozen(live)

/** The live access token of a bearer check's row. */
function liveOf(tokenDigest: string, row: LiveTokenRow): LiveAccessToken {
  return {
    token: {
      token_digest: tokenDigest,
      grant_id: row.grant_id,
      client_id: row.client_id,
      user_id: row.id,
      scope: row.scope,
      audience: row.audience,
      created_at: row.t_created_at,
      expires_at: row.t_expires_at,
    },
    user: toUser(row),
  }
}

/** Live access tokens kept in memory at most (a few hundred bytes each). */
const LIVE_TOKENS_CACHED = 10_000

/** What a bearer check's read found: the live token, and the companion read beside it. */
export interface LiveRead<Row extends object> {
  readonly live: LiveAccessToken | undefined
  /** The companion's row; null when it found nothing, absent when it was not read. */
  readonly companion?: Row | null
}

/**
 * The bearer check's reader over `db`. `dataVersion` (SQLite) tells when a write happened:
 * a token kept in memory is answered from there until then.
 */
export function createLiveTokenReader(db: Db, dataVersion?: () => number | undefined) {
  const liveTokens = new ReadCache<LiveAccessToken>(LIVE_TOKENS_CACHED)

  /**
   * The live token of a digest (see findLiveAccessToken), with `companion` read in the same
   * statement when the token is read from the database (see findLiveAccessTokenWith).
   */
  return async function readLive<Row extends object>(
    tokenDigest: string,
    now: number,
    companion?: () => CompiledQuery<Row>,
  ): Promise<LiveRead<Row>> {
    const version = dataVersion?.()
    if (version !== undefined) {
      const kept = liveTokens.get(tokenDigest, version)
      if (kept) return { live: kept.token.expires_at > now ? kept : undefined }
    }
    let row: LiveTokenRow | undefined
    let found: Row | null | undefined
    if (companion) {
      const token = liveAccessToken.statement(db, tokenDigest, now)
      const pair = await pairedRead(db, token, LIVE_TOKEN_NAMES, companion())
      row = pair.first
      found = pair.second ?? null
    } else {
      ;[row] = await liveAccessToken(db, tokenDigest, now)
    }
    const live = row && liveOf(tokenDigest, row)
    if (live && version !== undefined) liveTokens.set(tokenDigest, version, frozen(live))
    return found === undefined ? { live } : { live, companion: found }
  }
}
