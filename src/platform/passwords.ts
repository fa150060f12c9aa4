import { hash, verify } from '@node-rs/argon2'

/**
 * argon2id with OWASP's recommended parameters (19 MiB, 2 passes, 1 lane). @node-rs/argon2
 * runs the hash on libuv's thread pool, off the event loop.
 */
// 2 is Algorithm.Argon2id, a const enum that verbatimModuleSyntax cannot import.
const OPTIONS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const

/** Refused before hashing: argon2 cost is per byte, and nobody types a 1 KiB password. */
export const MAX_PASSWORD_LENGTH = 1024
export const MIN_PASSWORD_LENGTH = 10

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS)
}

/** A hash of a password nobody has, so a sign-in for an unknown account costs the same. */
let decoy: Promise<string> | undefined

/**
 * Checks a password against a stored hash; with no hash (no such account) it still does
 * the same work and answers false, so timing does not tell whether the account exists.
 */
export async function verifyPassword(
  password: string,
  storedHash: string | undefined,
): Promise<boolean> {
  if (password.length > MAX_PASSWORD_LENGTH) return false
  if (storedHash === undefined) {
    decoy ??= hashPassword('portico decoy password that matches nothing')
    await verify(await decoy, password).catch(() => false)
    return false
  }
  try {
    return await verify(storedHash, password)
  } catch {
    return false
  }
}

/** Why a new password is not acceptable, or undefined when it is. */
export function checkNewPassword(password: string): string | undefined {
  if ([...password].length < MIN_PASSWORD_LENGTH)
    return `the password must be at least ${MIN_PASSWORD_LENGTH} characters`
  if (password.length > MAX_PASSWORD_LENGTH)
    return `the password must be at most ${MAX_PASSWORD_LENGTH} characters`
  return undefined
}
