import type { ScopeLine } from '../../views/consent-page.js'

const IDENTITY: Record<string, string> = {
  openid: 'Confirm that it is you (your account identifier)',
  profile: 'Your name and profile picture',
  email: 'Your e-mail address',
}

/** Plain-language line for a scope, as the consent page shows it. */
export function describeScope(scope: string): ScopeLine {
  const identity = IDENTITY[scope]
  if (identity) return { scope, label: identity }
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
    if (scope in IDENTITY) groups.identity.push(line)
    else if (scope.endsWith(':write')) groups.write.push(line)
    else groups.read.push(line)
  }
  return groups
}
