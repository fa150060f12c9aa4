import type { Role } from '../../roles.js'
import { roleAllows } from '../../roles.js'

/** The requested scopes a person's role lets them grant, and those it does not (DOMAIN.md §4.1). */
export function scopesForRole(
  scopes: readonly string[],
  role: Role,
): { grantable: string[]; refused: string[] } {
  const grantable: string[] = []
  const refused: string[] = []
  for (const scope of scopes) (roleAllows(role, scope) ? grantable : refused).push(scope)
  return { grantable, refused }
}
