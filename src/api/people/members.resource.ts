import { authorityRefusal, type Role, roleAllows, roleRank } from '../../oauth/roles.js'
import { ALL_SCOPES } from '../../oauth/scopes.js'
import { hashPassword } from '../../platform/passwords.js'
import { conflict } from '../conventions.js'
import { email, enumeration, instant, text, url } from '../framework/fields.js'
import { defineResource, type ResourceContext } from '../framework/resource.js'
import { derived } from '../framework/structures.js'
import { shown } from '../framework/views.js'
import { ProblemError } from '../problem.js'
import { schoolWide } from './owners.js'

const TEAM: readonly Role[] = ['owner', 'admin', 'editor', 'lecturer', 'teaching_assistant']

const forbidden = (detail: string) =>
  new ProblemError(403, { code: 'forbidden_role', title: 'Forbidden', detail })

/** Refuses a change that would leave the school without an active owner. */
async function keepAnOwner(context: ResourceContext, leaving: string): Promise<void> {
  const other = await context.db
    .selectFrom('users')
    .select('id')
    .where('role', '=', 'owner')
    .where('status', '<>', 'suspended')
    .where('id', '<>', leaving)
    .limit(1)
    .executeTakeFirst()
  if (!other) throw conflict('this is the last owner: make another member owner first')
}

/** What the caller may do to a member holding `current` (or about to hold `next`). */
function checkAuthority(context: ResourceContext, current: string | undefined, next: unknown) {
  const refusal = authorityRefusal(
    context.caller.user.role,
    current,
    typeof next === 'string' ? next : undefined,
  )
  if (refusal) throw forbidden(refusal)
}

/**
 * The team (DOMAIN.md §4.3.4): the accounts with a team role. Invite creates an account in
 * the `invited` state; suspending disables sign-in and every token at once; removing turns
 * the account back into a learner and revokes its grants. Nobody raises their own role,
 * nobody grants above their own, only an owner touches an owner, and the last active owner
 * is never demoted, suspended or removed.
 */
export const members = defineResource({
  object: 'member',
  collection: 'members',
  table: 'users',
  idPrefix: 'usr',
  summary: 'The school’s team',
  scopes: { read: 'members:read', write: 'members:write' },
  writeRoles: ['owner', 'admin'],
  ownership: schoolWide(
    'The team is the school’s; who may change an owner is the members rule (an admin never touches the owner), not ownership of a row',
  ),
  operations: ['list', 'get', 'create', 'update', 'delete'],
  rows: { role: [...TEAM] },
  fields: {
    email: email({ required: true, unique: true, immutable: true, search: true, filter: true }),
    name: text({ max: 100, sortable: true, search: true }),
    avatar_url: url({ readOnly: true, nullable: true }),
    role: enumeration(TEAM, { required: true, filter: true, sortable: true }),
    status: enumeration(['invited', 'active', 'suspended'], { filter: true, default: 'invited' }),
    invited_at: instant({ readOnly: true, nullable: true }),
    invited_by: text({ readOnly: true, nullable: true }),
    permissions: derived(shown.list(shown.string()), {
      description:
        'The scopes the member’s role allows (a token acts with those it was also granted)',
    }),
  },
  computed: (row) => ({
    permissions: ALL_SCOPES.filter((scope) => roleAllows(row.role as Role, scope)),
  }),
  async beforeCreate(context, values) {
    checkAuthority(context, undefined, values.role)
    values.name ??= values.email!.split('@')[0]
    values.status = 'invited'
    values.invited_at = context.now
    values.invited_by = context.caller.user.id
    // Never usable: the invited person sets a password through the sign-in page's reset.
    values.password_hash = await hashPassword(context.deps.random.token('inv'))
  },
  async beforeWrite(context, values, existing) {
    if (!existing) return
    const self = existing.id === context.caller.user.id
    const role = values.role
    if (role !== undefined && role !== existing.role) {
      checkAuthority(context, existing.role, role)
      if (self && roleRank(role) > roleRank(existing.role))
        throw forbidden('nobody raises their own role')
      if (existing.role === 'owner') await keepAnOwner(context, existing.id)
    } else checkAuthority(context, existing.role, undefined)
    if (values.status !== undefined && values.status !== 'active' && existing.role === 'owner')
      await keepAnOwner(context, existing.id)
    if (values.status === 'suspended') values.disabled_at = context.now
    else if (values.status === 'active') values.disabled_at = null
    // Set back to `invited`, a suspended person stays disabled: only `active`, set by an
    // owner or admin, lets them sign in again (see isActive in storage/users.ts).
  },
  async remove(context, row) {
    checkAuthority(context, row.role, undefined)
    if (row.role === 'owner') await keepAnOwner(context, row.id)
    await context.db
      .updateTable('users')
      .set({ role: 'student', status: 'active', updated_at: context.now })
      .where('id', '=', row.id)
      .execute()
    await context.db
      .updateTable('grants')
      .set({ revoked_at: context.now })
      .where('user_id', '=', row.id)
      .where('revoked_at', 'is', null)
      .execute()
    await context.db.deleteFrom('consents').where('user_id', '=', row.id).execute()
  },
})
