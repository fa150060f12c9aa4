import { createHash } from 'node:crypto'
import { Refusal } from './refusal.js'
import type { Cells, Store } from './store.js'

/** Who is calling: the bearer token read and looked up, and what the caller's role allows. */

/** RFC 6750 §2.1, as Portico reads it. */
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*)$/i

/** The read scopes each role may hold (src/oauth/roles.ts), of those served here. */
const ROLE_READS: Record<string, ReadonlySet<string>> = {
  owner: new Set(['account:read', 'courses:read', 'events:read']),
  admin: new Set(['account:read', 'courses:read', 'events:read']),
  editor: new Set(['account:read', 'courses:read', 'events:read']),
  lecturer: new Set(['account:read', 'courses:read', 'events:read']),
  teaching_assistant: new Set(['account:read', 'courses:read']),
  student: new Set(['account:read']),
}
export const TEAM_ROLES = new Set(['owner', 'admin', 'editor', 'lecturer', 'teaching_assistant'])

/** The caller's columns by position (sql.ts LIVE_TOKEN). */
export const P = {
  id: 0,
  email: 1,
  name: 2,
  role: 3,
  locale: 4,
  timezone: 5,
  avatarUrl: 6,
  bio: 7,
  notificationPreferences: 8,
  createdAt: 9,
  updatedAt: 10,
  scope: 12,
  audience: 13,
} as const

/** The bearer token in an Authorization header, or a refusal. */
export function bearerDigest(header: string): string {
  const token = BEARER.exec(header)?.[1]
  if (token === undefined) throw new Refusal(401, 'invalid_token', 'malformed Authorization')
  return createHash('sha256').update(token).digest('base64url')
}

/** The caller's columns, checked: refused unless the token is live and for this issuer. */
export function checked(person: Cells | undefined, issuer: string): Cells {
  if (!person || person[P.id] === null || person[P.audience] !== issuer)
    throw new Refusal(401, 'invalid_token', 'the access token is invalid, expired or revoked')
  return person
}

/** The caller's person, or undefined when anonymous; a bad token is refused. */
export async function callerOf(
  store: Store,
  header: string | undefined,
  issuer: string,
): Promise<Cells | undefined> {
  if (header === undefined) return undefined
  return checked(await store.liveToken(bearerDigest(header), Date.now()), issuer)
}

/** Whether the caller's token holds `scope` and their role allows it. */
export function holds(person: Cells | undefined, scope: string): boolean {
  if (!person) return false
  return (
    (person[P.scope] as string).split(' ').includes(scope) &&
    ROLE_READS[person[P.role] as string]?.has(scope) === true
  )
}
