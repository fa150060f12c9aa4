import type { GrantListing } from '../storage/grant-listings.js'
import type { GrantStore } from '../storage/grants.js'

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
  /**
   * For a metadata-document client, each authorization is listed on its own (many
   * installations share one document URL): its one grant and where it was answered.
   */
  readonly installation:
    | { readonly grantId: string; readonly redirectUri: string | undefined }
    | undefined
}

/**
 * Live grants grouped by (person, client), newest first: one person's, or everyone's. Grants
 * of metadata-document clients are not grouped: each is one installation of the tool.
 */
export async function listConnections(
  grants: GrantStore,
  now: number,
  userId?: string,
): Promise<Connection[]> {
  const byKey = new Map<string, Connection>()
  for (const g of await grants.listLive(now, userId)) {
    const perInstallation = g.clientKind === 'metadata_document'
    const key = perInstallation ? `grant\0${g.id}` : `${g.userId}\0${g.clientId}`
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
      installation: perInstallation ? { grantId: g.id, redirectUri: g.redirectUri } : undefined,
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
