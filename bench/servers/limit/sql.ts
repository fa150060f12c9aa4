/**
 * The limit server's SQL: the reads each request makes and the refresh's rotation, written
 * with PostgreSQL's $N placeholders (the SQLite store puts its ? in their place).
 */

/** The caller: their person, then the token's client, scope and audience (see caller.ts). */
const LIVE_TOKEN = `select u.id, u.email, u.name, u.role, u.locale, u.timezone, u.avatar_url, u.bio,
  u.notification_preferences, u.created_at, u.updated_at, t.client_id, t.scope, t.audience
  from access_tokens t join grants g on g.id = t.grant_id join users u on u.id = t.user_id
  where t.token_digest = $1 and t.expires_at > $2 and g.revoked_at is null
  and u.status = 'active' and u.disabled_at is null`
/** The columns of {@link LIVE_TOKEN}. */
export const CALLER_WIDTH = 14
/** A course's columns in the order of its view (views.ts reads them by position). */
const COURSE_COLUMNS = `id, title, slug, subtitle, description, cover_image_url, promo_video_url,
  status, visibility, featured, category_id, tags, level, language, pricing_plans, enrollment,
  certificate_enabled, comments_enabled, reviews_enabled, seo, published_at, lecturer_ids,
  created_at, updated_at`
/**
 * The bearer check joined to the course: the caller's columns (all null when the token is not
 * live), then the course's (null when there is none); whether the caller may see a course that
 * is not public is decided on the row, as the anonymous read's WHERE would.
 */
const callerAndCourse = (column: 'id' | 'slug') => `select p.*, ${COURSE_COLUMNS.split(',')
  .map((name) => `c.${name.trim()}`)
  .join(', ')}
  from (select 1 as one) one left join (${LIVE_TOKEN}) p on true
  left join courses c on c.${column} = $3`
/** What an anonymous caller may read of a course: by key, and in the catalogue. */
const COURSE_GET_VISIBLE = `status in ('published') and visibility in ('public', 'unlisted')`
const COURSE_LIST_VISIBLE = `status in ('published') and visibility in ('public')`

/** Statements whose rows are read as arrays (better-sqlite3 raw, pg rowMode array). */
export const ARRAY_SQL = {
  liveToken: LIVE_TOKEN,
  callerAndCourseById: callerAndCourse('id'),
  callerAndCourseBySlug: callerAndCourse('slug'),
  courseById: `select ${COURSE_COLUMNS} from courses where id = $1`,
  courseBySlug: `select ${COURSE_COLUMNS} from courses where slug = $1`,
  visibleCourseById: `select ${COURSE_COLUMNS} from courses where id = $1 and ${COURSE_GET_VISIBLE}`,
  visibleCourseBySlug: `select ${COURSE_COLUMNS} from courses where slug = $1 and ${COURSE_GET_VISIBLE}`,
  courses: `select ${COURSE_COLUMNS} from courses order by created_at desc, id desc limit $1`,
  visibleCourses: `select ${COURSE_COLUMNS} from courses where ${COURSE_LIST_VISIBLE} order by created_at desc, id desc limit $1`,
  countCourses: 'select count(*) as n from courses',
  countVisibleCourses: `select count(*) as n from courses where ${COURSE_LIST_VISIBLE}`,
  /** The client, then the refresh token with its grant and person (left-joined). */
  clientWithRefresh: `select c.token_endpoint_auth_method, c.grant_types,
    r.token_digest, r.client_id, r.scope, r.expires_at, r.rotated_at,
    g.id, g.user_id, g.resource, g.created_at, g.expires_at, g.revoked_at,
    u.status, u.disabled_at
    from clients c
    left join refresh_tokens r on r.token_digest = $1
    left join grants g on g.id = r.grant_id
    left join users u on u.id = g.user_id
    where c.client_id = $2`,
} as const

export const SQL = {
  eventById: 'select * from events where id = $1',
  eventBySlug: 'select * from events where slug = $1',
  events: 'select * from events order by starts_at desc, id desc limit $1',
  countEvents: 'select count(*) as n from events',
} as const

/** SQLite's rotation: one transaction of the read and these four (store.ts). */
export const SQLITE_ROTATION = {
  rotate: 'update refresh_tokens set rotated_at = ? where token_digest = ? and rotated_at is null',
  access: `insert into access_tokens
    (token_digest, grant_id, client_id, user_id, scope, audience, created_at, expires_at)
    values (?, ?, ?, ?, ?, ?, ?, ?)`,
  refresh: `insert into refresh_tokens
    (token_digest, grant_id, client_id, scope, created_at, expires_at, rotated_at)
    values (?, ?, ?, ?, ?, ?, null)`,
  grant: 'update grants set last_used_at = ?, expires_at = max(expires_at, ?) where id = ?',
} as const

/**
 * PostgreSQL's refresh grant as ONE statement: the client and the presented token (with its
 * grant and person) checked, and only if all hold, the token rotated, the new access and
 * refresh tokens inserted and the grant's use recorded. It answers one row: the client's
 * authentication method and grant types (null: no such client), the token's scope (null: the
 * token fails a check) and whether this statement rotated it (false: already rotated).
 * $1 the presented token's digest, $2 the client, $3 now, $4/$5 the new access token's digest
 * and expiry, $6 the new refresh token's digest, $7 now + its lifetime, $8 a grant's maximum.
 */
export const POSTGRES_REFRESH = `with client as (
    select token_endpoint_auth_method as method, grant_types from clients where client_id = $2),
  live as (
    select r.grant_id, r.scope, g.user_id, g.resource,
      least($7::bigint, g.created_at + $8::bigint) as refresh_expires
    from refresh_tokens r join grants g on g.id = r.grant_id join users u on u.id = g.user_id
    where r.token_digest = $1 and r.client_id = $2 and r.rotated_at is null
      and r.expires_at > $3::bigint and g.revoked_at is null and g.expires_at > $3::bigint
      and g.created_at + $8::bigint > $3::bigint and u.status = 'active' and u.disabled_at is null
      and exists (select 1 from client
        where method = 'none' and strpos(grant_types, 'refresh_token') > 0)),
  go as (
    update refresh_tokens set rotated_at = $3::bigint
    where token_digest = $1 and rotated_at is null and exists (select 1 from live) returning 1),
  new_access as (
    insert into access_tokens
      (token_digest, grant_id, client_id, user_id, scope, audience, created_at, expires_at)
    select $4::text, grant_id, $2::text, user_id, scope, resource, $3::bigint, $5::bigint
    from live, go),
  new_refresh as (
    insert into refresh_tokens (token_digest, grant_id, client_id, scope, created_at, expires_at)
    select $6::text, grant_id, $2::text, scope, $3::bigint, refresh_expires from live, go),
  used as (
    update grants set last_used_at = $3::bigint,
      expires_at = greatest(grants.expires_at, $5::bigint, live.refresh_expires)
    from live where grants.id = live.grant_id and exists (select 1 from go) returning 1)
  select client.method, client.grant_types, live.scope, exists (select 1 from go) as rotated
  from (select 1 as one) one left join client on true left join live on true`

const placeholders = (count: number) =>
  Array.from({ length: count }, (_, i) => `$${i + 1}`).join(', ')
export const ticketsSql = (count: number) =>
  `select * from event_tickets where event_id in (${placeholders(count)}) order by position, id`
export const soldSql = (count: number) =>
  `select event_id, ticket_id, count(*) as n from event_attendees where event_id in (${placeholders(count)}) and status <> 'canceled' group by event_id, ticket_id`
