import type { UserTable } from '../storage/tables/oauth.js'
import { ALL_SCOPES } from './scopes.js'

export type Role = UserTable['role']

export const ROLES: readonly Role[] = [
  'owner',
  'admin',
  'editor',
  'lecturer',
  'teaching_assistant',
  'student',
]

/** What every person may grant about themselves. */
const PERSONAL = ['openid', 'profile', 'email', 'account:read', 'account:write']

const rw = (...resources: string[]) => resources.flatMap((r) => [`${r}:read`, `${r}:write`])
const read = (...resources: string[]) => resources.map((r) => `${r}:read`)

/**
 * The most each role can grant (DOMAIN.md §4.1). Scopes outside the catalogue (such as
 * `storage:read`, which does not exist) fall away when intersected with it.
 */
const GRANTABLE: Record<Role, readonly string[]> = {
  owner: ALL_SCOPES,
  admin: ALL_SCOPES,
  editor: [
    ...PERSONAL,
    ...rw(
      'courses',
      'curriculum',
      'lecturers',
      'posts',
      'pages',
      'events',
      'digital_products',
      'membership_plans',
      'coupons',
      'appearance',
      'storage',
    ),
    ...read('school', 'students', 'orders', 'analytics', 'comments', 'forms', 'subscriptions'),
  ],
  lecturer: [
    ...PERSONAL,
    'courses:read',
    ...rw('curriculum', 'events', 'lecturers', 'storage'),
    'students:read',
    'comments:read',
  ],
  teaching_assistant: [
    ...PERSONAL,
    ...read('courses', 'curriculum', 'comments', 'forms', 'subscriptions', 'orders'),
    ...rw('students'),
  ],
  student: PERSONAL,
}

const CATALOGUE = new Set(ALL_SCOPES)
const GRANTABLE_SETS = new Map<Role, ReadonlySet<string>>(
  ROLES.map((role) => [role, new Set(GRANTABLE[role].filter((s) => CATALOGUE.has(s)))]),
)

/** Whether a person with `role` may grant `scope` today. */
export function roleAllows(role: Role, scope: string): boolean {
  return GRANTABLE_SETS.get(role)?.has(scope) ?? false
}

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value)
}

/** Seniority of the team roles; a learner (`student`) ranks below every one of them. */
const RANK: Readonly<Record<Role, number>> = {
  owner: 5,
  admin: 4,
  editor: 3,
  lecturer: 2,
  teaching_assistant: 1,
  student: 0,
}

/** A role's seniority (0 for a learner or anything unknown). */
export function roleRank(role: string): number {
  return RANK[role as Role] ?? 0
}

/**
 * Why a person with the `actor` role may not manage another person who holds `target` (or
 * is about to be given `next`), or undefined when they may. The one rule for touching
 * another person's account: nobody manages or grants a role above their own, and only an
 * owner touches an owner. The members API (changing, suspending, removing a member) and the
 * connected-apps page (revoking someone else's apps) both ask it.
 */
export function authorityRefusal(
  actor: Role,
  target: string | undefined,
  next?: string,
): string | undefined {
  const mine = roleRank(actor)
  for (const role of [target, next])
    if (role !== undefined && roleRank(role) > mine)
      return `${/^[aeiou]/.test(actor) ? 'an' : 'a'} ${actor.replaceAll('_', ' ')} may not manage or grant the ${role.replaceAll('_', ' ')} role`
  if (target === 'owner' && actor !== 'owner') return 'only an owner may change an owner'
  return undefined
}
