import type { CompiledQuery } from 'kysely'
import { execute, preparedOnPostgres } from './compiled-query.js'
import {
  type ClientWithRefreshGrant,
  type ClientWithRefreshGrantRow,
  clientWithRefreshGrantOf,
  clientWithRefreshGrantStatement,
} from './grant-tokens.js'
import { cannotBeStored } from './lookup.js'
import type { Db } from './schema.js'

/** A refresh to do in one statement: the presented token, its client, and the new tokens. */
export interface RefreshRotation {
  readonly clientId: string
  /** The SHA-256 digest of the presented refresh token. */
  readonly rotates: string
  readonly now: number
  /** `PORTICO_REFRESH_TOKEN_ABSOLUTE_TTL` in milliseconds: no token outlives its grant's end. */
  readonly grantMaximumMs: number
  readonly accessDigest: string
  readonly accessExpires: number
  readonly refreshDigest: string
  /** now + a refresh token's lifetime; the grant's end may cut the new token's shorter. */
  readonly refreshLifetimeEnd: number
}

/**
 * What the statement did: rotated, with the scope of the token it rotated (which the new
 * tokens have), or not, with what it read (as {@link clientWithRefreshGrantOf} makes it) for
 * the grant to judge.
 */
export type RefreshRotationOutcome =
  | { readonly rotated: true; readonly scope: string }
  | ({ readonly rotated: false } & ClientWithRefreshGrant)

/**
 * The statement's one row: a rotation's scope, or the read's row (as JSON, the columns of
 * {@link ClientWithRefreshGrantRow}, bigints as numbers). Only a refusal needs the read, and a
 * row of 35 columns cost pg more to describe and parse than the statement's own checks.
 */
interface RotationRow {
  readonly rotated_scope: string | null
  readonly found: ClientWithRefreshGrantRow | null
}

/**
 * The refresh-token grant of a public client on PostgreSQL as ONE statement: the read of the
 * client and of the presented token with its grant and person (the same read as the two-step
 * path's, its text and columns), the checks, the rotation, both new tokens and the grant's
 * use, where the two-step path took two round trips (npm run bench, profiled: two thirds of
 * what a refresh cost beyond the limit server).
 *
 * The checks in `usable` are those of the grant (refresh-token.ts) for a public client that
 * sends no secret, scope or resource: a public, stored client registered for the grant; the
 * token its own, unrotated and unexpired; its grant unrevoked, unexpired and within its
 * absolute lifetime; its person active. They may only be stricter than the grant's, never
 * looser: whatever this statement does not rotate, the caller judges again from the row it
 * read, with the grant's own code, and so finds the exact refusal (or, should the two ever
 * disagree the other way, rotates in two steps).
 *
 * The rotation is an update of an unrotated row; the inserts and the grant's update take
 * their rows from it, so nothing is stored unless it matched. Of two concurrent refreshes,
 * the second waits for the first's row lock, then finds it rotated and stores nothing.
 */
function rotationSql(found: string, foundParameters: number): string {
  const $ = (n: number) => `$${foundParameters + n}`
  const now = `${$(1)}::bigint`
  return `with found as (${found}),
usable as (
  select r_token_digest as token_digest, r_grant_id as grant_id, client_id, r_scope as scope,
         g_user_id as user_id, g_resource as resource,
         least(${$(6)}::bigint, g_created_at + ${$(2)}::bigint) as refresh_expires
  from found
  where token_endpoint_auth_method = 'none'
    and kind <> 'metadata_document'
    and grant_types::jsonb ? 'refresh_token'
    and r_client_id = client_id
    and r_rotated_at is null
    and r_expires_at > ${now}
    and g_revoked_at is null
    and g_expires_at > ${now}
    and g_created_at + ${$(2)}::bigint > ${now}
    and u_status = 'active'
    and u_disabled_at is null
),
rotated as (
  update refresh_tokens as r set rotated_at = ${now}
  from usable
  where r.token_digest = usable.token_digest and r.rotated_at is null
  returning usable.*
),
new_access as (
  insert into access_tokens
    (token_digest, grant_id, client_id, user_id, scope, audience, created_at, expires_at)
  select ${$(3)}::text, grant_id, client_id, user_id, scope, resource, ${now}, ${$(4)}::bigint
  from rotated
),
new_refresh as (
  insert into refresh_tokens (token_digest, grant_id, client_id, scope, created_at, expires_at)
  select ${$(5)}::text, grant_id, client_id, scope, ${now}, refresh_expires
  from rotated
),
used as (
  update grants as g
  set last_used_at = ${now},
      expires_at = greatest(g.expires_at, ${$(4)}::bigint, rotated.refresh_expires)
  from rotated
  where g.id = rotated.grant_id
)
select (select scope from rotated) as rotated_scope,
       (select row_to_json(found) from found where not exists (select 1 from rotated)) as found`
}

/** The statement's text by the read's text (one read, so one text per database kind). */
const texts = new Map<string, string>()

/** PostgreSQL only: see {@link rotationSql}. */
export async function rotateRefreshInOneStatement(
  db: Db,
  rotation: RefreshRotation,
): Promise<RefreshRotationOutcome> {
  if (cannotBeStored(rotation.clientId))
    return { rotated: false, client: undefined, refresh: undefined }
  const found = clientWithRefreshGrantStatement(db, rotation.clientId, rotation.rotates)
  let text = texts.get(found.sql)
  if (text === undefined) {
    text = preparedOnPostgres(rotationSql(found.sql, found.parameters.length))
    texts.set(found.sql, text)
  }
  const [row] = await execute(db, {
    ...found,
    sql: text,
    parameters: [
      ...found.parameters,
      rotation.now,
      rotation.grantMaximumMs,
      rotation.accessDigest,
      rotation.accessExpires,
      rotation.refreshDigest,
      rotation.refreshLifetimeEnd,
    ],
  } as CompiledQuery<RotationRow>)
  if (row?.rotated_scope !== null && row?.rotated_scope !== undefined)
    return { rotated: true, scope: row.rotated_scope }
  return { rotated: false, ...clientWithRefreshGrantOf(row?.found ?? undefined) }
}
