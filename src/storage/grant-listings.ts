import type { Db } from './schema.js'
import type { User } from './users.js'

/** A grant as the connected-apps page and the CLI show it. */
export interface GrantListing {
  readonly id: string
  readonly clientId: string
  readonly clientName: string | undefined
  readonly clientKind: 'self_registered' | 'integration' | 'metadata_document'
  readonly userId: string
  readonly userEmail: string
  readonly userName: string
  readonly userRole: User['role']
  readonly scope: string
  readonly resource: string
  readonly createdAt: number
  readonly lastUsedAt: number | undefined
  /** Where the authorization that created the grant was answered; undefined for older grants. */
  readonly redirectUri: string | undefined
}

/**
 * Live grants (not revoked, not expired) with their client and person, newest first: one
 * person's, or with no user id every grant at the school.
 */
export async function listLiveGrants(
  db: Db,
  now: number,
  userId?: string,
): Promise<GrantListing[]> {
  let query = db
    .selectFrom('grants as g')
    .innerJoin('clients as c', 'c.client_id', 'g.client_id')
    .innerJoin('users as u', 'u.id', 'g.user_id')
    .select([
      'g.id',
      'g.client_id',
      'g.user_id',
      'g.scope',
      'g.resource',
      'g.created_at',
      'g.last_used_at',
      'g.redirect_uri',
      'c.client_name',
      'c.kind',
      'u.email',
      'u.name',
      'u.role',
    ])
    .where('g.revoked_at', 'is', null)
    .where('g.expires_at', '>', now)
    .orderBy('g.created_at', 'desc')
    .orderBy('g.id')
  if (userId !== undefined) query = query.where('g.user_id', '=', userId)
  const rows = await query.execute()
  return rows.map((r) => ({
    id: r.id,
    clientId: r.client_id,
    clientName: r.client_name ?? undefined,
    clientKind: r.kind,
    userId: r.user_id,
    userEmail: r.email,
    userName: r.name,
    userRole: r.role,
    scope: r.scope,
    resource: r.resource,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at ?? undefined,
    redirectUri: r.redirect_uri ?? undefined,
  }))
}
