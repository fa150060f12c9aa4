import { randomBytes } from 'node:crypto'

/** `n` random bytes as base64url, drawn 4 KiB at a time and each used once, as Portico does. */
let pool = randomBytes(4096)
let used = 0
export function randomBase64url(n: number): string {
  if (used + n > pool.length) {
    pool = randomBytes(4096)
    used = 0
  }
  used += n
  return pool.toString('base64url', used - n, used)
}
