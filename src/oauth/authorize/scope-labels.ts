import { IDENTITY_SCOPES, isIdentityScope } from '../identity-claims.js'

/** One line of the consent page: a scope and what it lets the app do, in words. */
export interface ScopeLine {
  readonly scope: string
  readonly label: string
}

/**
 * Plain-language line for a scope, as the consent page shows it. An identity scope's words
 * are those of the table its claims come from (identity-claims.ts).
 */
export function describeScope(scope: string): ScopeLine {
  if (isIdentityScope(scope)) return { scope, label: IDENTITY_SCOPES[scope].label }
  const [resource = '', access] = scope.split(':')
  const noun =
    resource === 'account'
      ? 'your own account profile'
      : `the school's ${resource.replaceAll('_', ' ')}`
  return { scope, label: access === 'write' ? `Create, change and delete ${noun}` : `View ${noun}` }
}

/** Splits scopes into the consent page's groups. */
export function groupScopes(scopes: readonly string[]): {
  identity: ScopeLine[]
  read: ScopeLine[]
  write: ScopeLine[]
} {
  const groups = { identity: [] as ScopeLine[], read: [] as ScopeLine[], write: [] as ScopeLine[] }
  for (const scope of scopes) {
    const line = describeScope(scope)
    if (isIdentityScope(scope)) groups.identity.push(line)
    else if (scope.endsWith(':write')) groups.write.push(line)
    else groups.read.push(line)
  }
  return groups
}
