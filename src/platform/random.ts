import { randomBytes } from 'node:crypto'

/** The source of randomness, a dependency so tests can see what it makes. */
export interface Random {
  bytes(n: number): Buffer
  /** A prefixed token carrying 256 random bits, e.g. `pat_…` (43 base64url characters). */
  token(prefix: string): string
  /** A prefixed identifier carrying 128 random bits, e.g. `usr_…`. */
  id(prefix: string): string
}

export const cryptoRandom: Random = {
  bytes: (n) => randomBytes(n),
  token: (prefix) => `${prefix}_${randomBytes(32).toString('base64url')}`,
  id: (prefix) => `${prefix}_${randomBytes(16).toString('base64url')}`,
}
