import type { GrantListing, GrantStore } from '../storage/grants.js'

/** A tool one person authorized: all of its live grants for that person, taken together. */
export interface Connection {
  readonly clientId: string
  readonly clientName: string | undefined
  readonly clientKind: GrantListing['clientKind']
  readonly userId: string
  readonly userEmail: string
  readonly userName: string
  readonly userRole: GrantListing['userRole']
  readonly scopes: readonly string[]
  readonly grantedAt: number
  readonly lastUsedAt: number | undefined
  readonly grantIds: readonly string[]
}

/** Live grants grouped by (person, client), newest first: one person's, or everyone's. */
export async function listConnections(
  grants: GrantStore,
  now: number,
  userId?: string,
): Promise<Connection[]> {
  const byKey = new Map<string, Connection>()
  for (const g of await grants.listLive(now, userId)) {
    const key = `${g.userId}\0${g.clientId}`
    const seen = byKey.get(key)
    const scopes = g.scope.split(' ')
    byKey.set(key, {
      clientId: g.clientId,
      clientName: g.clientName,
      clientKind: g.clientKind,
      userId: g.userId,
      userEmail: g.userEmail,
      userName: g.userName,
      userRole: g.userRole,
      scopes: seen ? [...new Set([...seen.scopes, ...scopes])] : scopes,
      grantedAt: seen ? Math.min(seen.grantedAt, g.createdAt) : g.createdAt,
      lastUsedAt: Math.max(seen?.lastUsedAt ?? 0, g.lastUsedAt ?? 0) || undefined,
      grantIds: [...(seen?.grantIds ?? []), g.id],
    })
  }
  return [...byKey.values()]
}

/**
 * Revokes every live grant matching the filter, and so every token issued under them.
 * Returns how many grants ended.
 */
export async function revokeGrants(
  grants: GrantStore,
  filter: { clientId?: string; userId?: string; grantId?: string },
  now: number,
): Promise<number> {
  const ids = await grants.liveGrantIds(filter)
  for (const id of ids) await grants.revokeGrant(id, now)
  return ids.length
}
