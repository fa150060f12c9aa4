/**
 * The scope catalogue of the specification (section 5): OpenID Connect's three, then
 * `<resource>:read|write` exactly as its table lists them.
 */
const RESOURCE_TABLE: ReadonlyArray<readonly [resource: string, read: boolean, write: boolean]> = [
  ['courses', true, true],
  ['students', true, true],
  ['members', true, true],
  ['analytics', true, false],
  ['curriculum', true, true],
  ['orders', true, false],
  ['school', true, true],
  ['appearance', true, true],
  ['events', true, true],
  ['membership_plans', true, true],
  ['coupons', true, true],
  ['posts', true, true],
  ['subscriptions', true, true],
  ['digital_products', true, true],
  ['comments', true, false],
  ['lecturers', true, true],
  ['storage', false, true],
  ['forms', true, false],
  ['pages', true, true],
  ['account', true, true],
]

export const OIDC_SCOPES = ['openid', 'profile', 'email'] as const

export const RESOURCE_SCOPES: readonly string[] = RESOURCE_TABLE.flatMap(([name, read, write]) => [
  ...(read ? [`${name}:read`] : []),
  ...(write ? [`${name}:write`] : []),
])

/** Every scope Portico knows, in the order it advertises them. */
export const ALL_SCOPES: readonly string[] = [...OIDC_SCOPES, ...RESOURCE_SCOPES]

const KNOWN = new Set(ALL_SCOPES)

export function isKnownScope(scope: string): boolean {
  return KNOWN.has(scope)
}

/**
 * Splits a `scope` parameter (RFC 6749 §3.3: space-delimited, case-sensitive). Returns
 * undefined when it is not well formed: empty tokens from doubled or edge spaces, or
 * characters outside the RFC's scope-token alphabet.
 */
export function parseScope(value: string): string[] | undefined {
  if (value === '') return []
  const tokens = value.split(' ')
  if (tokens.some((t) => !/^[\x21\x23-\x5B\x5D-\x7E]+$/.test(t))) return undefined
  return [...new Set(tokens)]
}
