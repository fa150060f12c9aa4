import { createHash } from 'node:crypto'
import { Refusal } from './refusal.js'
import type { Row, Store } from './store.js'

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

/** The caller's person, or undefined when anonymous; a bad token is refused. */
export async function callerOf(
  store: Store,
  header: string | undefined,
  issuer: string,
): Promise<Row | undefined> {
  if (header === undefined) return undefined
  const token = BEARER.exec(header)?.[1]
  if (token === undefined) throw new Refusal(401, 'invalid_token', 'malformed Authorization')
  const digest = createHash('sha256').update(token).digest('base64url')
  const person = await store.liveToken(digest, Date.now())
  if (!person || person.audience !== issuer)
    throw new Refusal(401, 'invalid_token', 'the access token is invalid, expired or revoked')
  return person
}

/** Whether the caller's token holds `scope` and their role allows it. */
export function holds(person: Row | undefined, scope: string): boolean {
  if (!person) return false
  return (
    (person.scope as string).split(' ').includes(scope) &&
    ROLE_READS[person.role as string]?.has(scope) === true
  )
}
