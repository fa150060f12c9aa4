/**
 * The limit server's SQL: the reads each request makes and the refresh's rotation, written
 * with PostgreSQL's $N placeholders (the SQLite store puts its ? in their place).
 */

const LIVE_TOKEN = `select u.id, u.email, u.name, u.role, u.locale, u.timezone, u.avatar_url, u.bio,
  u.notification_preferences, u.created_at, u.updated_at, t.client_id, t.scope, t.audience
  from access_tokens t join grants g on g.id = t.grant_id join users u on u.id = t.user_id
  where t.token_digest = $1 and t.expires_at > $2 and g.revoked_at is null
  and u.status = 'active' and u.disabled_at is null`
/** What an anonymous caller may read of a course: by key, and in the catalogue. */
const COURSE_GET_VISIBLE = `status in ('published') and visibility in ('public', 'unlisted')`
const COURSE_LIST_VISIBLE = `status in ('published') and visibility in ('public')`

export const SQL = {
  liveToken: LIVE_TOKEN,
  courseById: 'select * from courses where id = $1',
  courseBySlug: 'select * from courses where slug = $1',
  visibleCourseById: `select * from courses where id = $1 and ${COURSE_GET_VISIBLE}`,
  visibleCourseBySlug: `select * from courses where slug = $1 and ${COURSE_GET_VISIBLE}`,
  courses: 'select * from courses order by created_at desc, id desc limit $1',
  visibleCourses: `select * from courses where ${COURSE_LIST_VISIBLE} order by created_at desc, id desc limit $1`,
  countCourses: 'select count(*) as n from courses',
  countVisibleCourses: `select count(*) as n from courses where ${COURSE_LIST_VISIBLE}`,
  eventById: 'select * from events where id = $1',
  eventBySlug: 'select * from events where slug = $1',
  events: 'select * from events order by starts_at desc, id desc limit $1',
  countEvents: 'select count(*) as n from events',
  clientWithRefresh: `select c.client_id, c.token_endpoint_auth_method, c.grant_types,
    r.token_digest as r_token_digest, r.client_id as r_client_id, r.scope as r_scope,
    r.expires_at as r_expires_at, r.rotated_at as r_rotated_at,
    g.id as g_id, g.user_id as g_user_id, g.resource as g_resource, g.created_at as g_created_at,
    g.expires_at as g_expires_at, g.revoked_at as g_revoked_at,
    u.status as u_status, u.disabled_at as u_disabled_at
    from clients c
    left join refresh_tokens r on r.token_digest = $1
    left join grants g on g.id = r.grant_id
    left join users u on u.id = g.user_id
    where c.client_id = $2`,
} as const

/** SQLite's rotation: one transaction of these four (Portico's storeInTransaction). */
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

/** PostgreSQL's rotation: one statement, as Portico's storeInOneStatement writes it. */
export const POSTGRES_ROTATION = `with go as (
    update refresh_tokens set rotated_at = $1::bigint
    where token_digest = $2 and rotated_at is null returning 1),
  new_access as (
    insert into access_tokens
      (token_digest, grant_id, client_id, user_id, scope, audience, created_at, expires_at)
    select $3::text, $4::text, $5::text, $6::text, $7::text, $8::text, $1::bigint, $9::bigint
    from go),
  new_refresh as (
    insert into refresh_tokens (token_digest, grant_id, client_id, scope, created_at, expires_at)
    select $10::text, $4::text, $5::text, $7::text, $1::bigint, $11::bigint from go)
  update grants set last_used_at = $1::bigint,
    expires_at = greatest(expires_at, $12::bigint)
  where id = $4 and exists (select 1 from go)
  returning id`

const placeholders = (count: number) =>
  Array.from({ length: count }, (_, i) => `$${i + 1}`).join(', ')
export const ticketsSql = (count: number) =>
  `select * from event_tickets where event_id in (${placeholders(count)}) order by position, id`
export const soldSql = (count: number) =>
  `select event_id, ticket_id, count(*) as n from event_attendees where event_id in (${placeholders(count)}) and status <> 'canceled' group by event_id, ticket_id`
