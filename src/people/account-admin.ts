import type { AppDeps } from '../app-deps.js'
import { revokeGrants } from '../oauth/connections.js'
import { isRole, ROLES } from '../oauth/roles.js'
import { isEmailAddress } from '../platform/email-address.js'
import { checkNewPassword, hashPassword } from '../platform/passwords.js'
import { normalizeEmail, type User } from '../storage/users.js'

/** A request about accounts that cannot be carried out; its message is one line for people. */
export class AccountError extends Error {
  override name = 'AccountError'
}

export interface NewAccount {
  readonly email: string
  readonly name: string
  readonly role: string
  readonly password: string
}

const MAX_NAME_LENGTH = 200

/** Why the details of a new account are not acceptable, or undefined when they are. */
export function checkNewAccount(input: NewAccount): string | undefined {
  if (!isEmailAddress(input.email.trim())) return `"${input.email}" is not an e-mail address`
  const name = input.name.trim()
  if (!name || name.length > MAX_NAME_LENGTH || /\p{Cc}/u.test(name))
    return `the name must be 1 to ${MAX_NAME_LENGTH} printable characters`
  if (!isRole(input.role)) return `the role must be one of ${ROLES.join(', ')}`
  return checkNewPassword(input.password)
}

/**
 * Creates an account with an argon2id hash of its password.
 *
 * @throws AccountError when the details are not acceptable or the e-mail is taken.
 */
export async function addAccount(
  deps: Pick<AppDeps, 'users' | 'clock' | 'random'>,
  input: NewAccount,
): Promise<User> {
  const problem = checkNewAccount(input)
  if (problem) throw new AccountError(problem)
  const email = normalizeEmail(input.email)
  const taken = () => new AccountError(`an account with e-mail ${email} already exists`)
  if (await deps.users.findCredentials(email)) throw taken()
  const passwordHash = await hashPassword(input.password)
  try {
    return await deps.users.insert({
      id: deps.random.id('usr'),
      email,
      name: input.name.trim(),
      role: input.role as User['role'],
      passwordHash,
      now: deps.clock.now(),
    })
  } catch (error) {
    // Another process added the same e-mail between the look-up and the insert.
    if (isUniqueViolation(error)) throw taken()
    throw error
  }
}

/**
 * Replaces an account's password and ends everything the old one started: every sign-in
 * session, and every grant with its tokens (access tokens are refused at the next call,
 * refresh tokens no longer rotate, codes not yet redeemed are refused) and its remembered
 * consent. Whoever knew the old password keeps nothing made with it.
 *
 * @throws AccountError when the password is not acceptable or there is no such account.
 */
export async function setAccountPassword(
  deps: Pick<AppDeps, 'users' | 'clock' | 'database' | 'grants'>,
  email: string,
  password: string,
): Promise<User> {
  const problem = checkNewPassword(password)
  if (problem) throw new AccountError(problem)
  const account = await deps.users.findCredentials(email)
  const missing = () => new AccountError(`no account with e-mail ${normalizeEmail(email)}`)
  if (!account) throw missing()
  const passwordHash = await hashPassword(password)
  if (!(await deps.users.setPasswordHash(email, passwordHash, deps.clock.now()))) throw missing()
  await deps.database.db.deleteFrom('sessions').where('user_id', '=', account.user.id).execute()
  await revokeGrants(deps.grants, { userId: account.user.id }, deps.clock.now())
  return account.user
}

/** A UNIQUE constraint refused the row: PostgreSQL's SQLSTATE 23505, or SQLite's code. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return (
    code === '23505' ||
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  )
}
