import { cannotBeStored } from './lookup.js'
import type { Db } from './schema.js'
import type { UserTable, UserTeamColumns } from './tables/oauth.js'

/** A person who can sign in. */
export interface User {
  readonly id: string
  readonly email: string
  readonly name: string
  readonly role: UserTable['role']
  readonly locale: string | undefined
  readonly timezone: string | undefined
  readonly avatarUrl: string | undefined
  readonly bio: string | undefined
  readonly notificationPreferences: Readonly<Record<string, boolean>> | undefined
  readonly createdAt: number
  readonly updatedAt: number
  readonly disabledAt: number | undefined
  /** `invited` until an owner or admin activates the account; `suspended` goes with `disabledAt`. */
  readonly status: UserTeamColumns['status']
}

/**
 * Whether the person may act now: sign in, redeem a code, refresh, call with a token. Only
 * an `active` account that is not disabled does; an invitation never accepted, a suspension,
 * or a suspended account set back to `invited` all stay out until an owner or admin sets the
 * status back to `active`. The storage reads that join a person (sessions, live access
 * tokens, refresh grants) apply the same rule in SQL, on the same two columns.
 */
export function isActive(user: Pick<User, 'status' | 'disabledAt'>): boolean {
  return user.status === 'active' && user.disabledAt === undefined
}

/** {@link isActive} as the columns of a joined `users` row (the SQL filters test the same). */
export function activeRow(row: { status: string; disabled_at: number | null }): boolean {
  return row.status === 'active' && row.disabled_at === null
}

/**
 * The columns a {@link User} is made of. The hot reads that join a person (every bearer
 * check, every signed-in page) select these, never the password hash nor invitation details.
 */
export const USER_COLUMNS = [
  'id',
  'email',
  'name',
  'role',
  'locale',
  'timezone',
  'avatar_url',
  'bio',
  'notification_preferences',
  'created_at',
  'updated_at',
  'disabled_at',
  'status',
] as const

export function toUser(
  row: Pick<UserTable & Pick<UserTeamColumns, 'status'>, (typeof USER_COLUMNS)[number]>,
): User {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    locale: row.locale ?? undefined,
    timezone: row.timezone ?? undefined,
    avatarUrl: row.avatar_url ?? undefined,
    bio: row.bio ?? undefined,
    notificationPreferences: row.notification_preferences
      ? (JSON.parse(row.notification_preferences) as Record<string, boolean>)
      : undefined,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    disabledAt: row.disabled_at ?? undefined,
    status: row.status,
  }
}

/** Profile fields a person may change about themselves; null clears a field. */
export interface ProfileChanges {
  readonly name?: string
  readonly avatarUrl?: string | null
  readonly locale?: string | null
  readonly timezone?: string | null
  readonly bio?: string | null
  readonly notificationPreferences?: Readonly<Record<string, boolean>>
}

/** E-mail addresses are compared without regard to case. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase()
}

export function createUserStore(db: Db) {
  return {
    async findById(id: string): Promise<User | undefined> {
      if (cannotBeStored(id)) return undefined
      const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst()
      return row && toUser(row)
    },
    /** The user and their password hash, for signing in. */
    async findCredentials(
      email: string,
    ): Promise<{ user: User; passwordHash: string } | undefined> {
      if (cannotBeStored(email)) return undefined
      const row = await db
        .selectFrom('users')
        .selectAll()
        .where('email', '=', normalizeEmail(email))
        .executeTakeFirst()
      return row && { user: toUser(row), passwordHash: row.password_hash }
    },
    async insert(input: {
      id: string
      email: string
      name: string
      role: UserTable['role']
      passwordHash: string
      now: number
    }): Promise<User> {
      const row: UserTable = {
        id: input.id,
        email: normalizeEmail(input.email),
        name: input.name,
        password_hash: input.passwordHash,
        role: input.role,
        locale: null,
        timezone: null,
        avatar_url: null,
        bio: null,
        notification_preferences: null,
        created_at: input.now,
        updated_at: input.now,
        disabled_at: null,
      }
      await db.insertInto('users').values(row).execute()
      return toUser({ ...row, status: 'active' })
    },
    /** Sets a new password hash; false when no such account. */
    async setPasswordHash(email: string, passwordHash: string, now: number): Promise<boolean> {
      const result = await db
        .updateTable('users')
        .set({ password_hash: passwordHash, updated_at: now })
        .where('email', '=', normalizeEmail(email))
        .executeTakeFirst()
      return Number(result.numUpdatedRows) > 0
    },
    /** Updates profile fields; returns the updated user, or undefined when gone. */
    async updateProfile(
      id: string,
      changes: ProfileChanges,
      now: number,
    ): Promise<User | undefined> {
      const set: Partial<UserTable> = { updated_at: now }
      if (changes.name !== undefined) set.name = changes.name
      if (changes.avatarUrl !== undefined) set.avatar_url = changes.avatarUrl
      if (changes.locale !== undefined) set.locale = changes.locale
      if (changes.timezone !== undefined) set.timezone = changes.timezone
      if (changes.bio !== undefined) set.bio = changes.bio
      if (changes.notificationPreferences !== undefined)
        set.notification_preferences = JSON.stringify(changes.notificationPreferences)
      await db.updateTable('users').set(set).where('id', '=', id).execute()
      const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst()
      return row && toUser(row)
    },
    async list(): Promise<User[]> {
      return (
        await db.selectFrom('users').selectAll().orderBy('created_at').orderBy('id').execute()
      ).map(toUser)
    },
    async count(): Promise<number> {
      const row = await db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
      return Number(row.n)
    },
  }
}

export type UserStore = ReturnType<typeof createUserStore>
