import type { AppDeps } from '../app-deps.js'
import { hashPassword } from '../platform/passwords.js'
import { withExclusiveLock } from '../storage/database.js'
import { createUserStore } from '../storage/users.js'

/** What the operator needs, once, to sign in for the first time. */
export interface FirstStart {
  readonly email: string
  readonly password: string
  readonly signInUrl: string
}

export const SCHOOL_ID = 'school'
const SCHOOL_NAME = 'My school'
const OWNER_NAME = 'Owner'
/** 144 bits, 24 base64url characters: strong and still easy to copy by hand. */
const PASSWORD_BYTES = 18

export type FirstStartDeps = Pick<AppDeps, 'config' | 'clock' | 'random' | 'database'>

/**
 * On an empty database (no school row), creates the school and one `owner` account with a
 * generated password, and returns what to show the operator. Returns undefined on every
 * later start. Runs under the database-wide exclusive lock, so of several instances starting
 * together on one database exactly one creates the owner and sees the password.
 *
 * @example
 * const first = await ensureSchoolAndOwner(deps)
 * if (first) print(`sign in at ${first.signInUrl} as ${first.email} with ${first.password}`)
 */
export async function ensureSchoolAndOwner(deps: FirstStartDeps): Promise<FirstStart | undefined> {
  if (await schoolExists(deps.database.db)) return undefined
  // Hashed before taking the lock: argon2 takes tens of milliseconds nobody should wait for.
  const password = deps.random.bytes(PASSWORD_BYTES).toString('base64url')
  const passwordHash = await hashPassword(password)
  const email = deps.config.ownerEmail
  return withExclusiveLock(deps.database, async (db) => {
    if (await schoolExists(db)) return undefined
    const now = deps.clock.now()
    await db
      .insertInto('school')
      .values({ id: SCHOOL_ID, name: SCHOOL_NAME, created_at: now, updated_at: now })
      .execute()
    // Someone ran `portico users add --role owner` before the first `serve`: that owner stands.
    const owner = await db
      .selectFrom('users')
      .select('id')
      .where('role', '=', 'owner')
      .limit(1)
      .executeTakeFirst()
    if (owner) return undefined
    const users = createUserStore(db)
    const existing = await users.findCredentials(email)
    if (existing) {
      throw new Error(
        `PORTICO_OWNER_EMAIL ${email} already belongs to a ${existing.user.role} account; choose another address`,
      )
    }
    await users.insert({
      id: deps.random.id('usr'),
      email,
      name: OWNER_NAME,
      role: 'owner',
      passwordHash,
      now,
    })
    return { email, password, signInUrl: `${deps.config.issuer}/login` }
  })
}

async function schoolExists(db: FirstStartDeps['database']['db']): Promise<boolean> {
  const row = await db.selectFrom('school').select('id').limit(1).executeTakeFirst()
  return row !== undefined
}
