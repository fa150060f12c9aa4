import * as crypto from 'node:crypto'
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto'

/**
 * SHA-256 of a text in base64url. Node's one-shot `crypto.hash` (20.12 and later) takes a
 * third of the time of a Hash object for a token-sized input; older Node 20 releases use
 * the object. Runs for every bearer token, token request and API answer's ETag.
 */
export const sha256Base64url: (text: string) => string =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'base64url')
    : (text) => createHash('sha256').update(text, 'utf8').digest('base64url')

/** SHA-256 digest of a server-made secret, as stored (base64url). */
export function digest(secret: string): string {
  return sha256Base64url(secret)
}

/**
 * Compares a presented secret with a stored digest in constant time: both sides are
 * hashed first, so neither the content nor the length of the secret leaks through timing.
 */
export function secretMatches(presented: string, storedDigest: string): boolean {
  const a = createHash('sha256').update(presented, 'utf8').digest()
  const b = Buffer.from(storedDigest, 'base64url')
  return b.length === a.length && timingSafeEqual(a, b)
}

/** Derives the 256-bit key-encryption key from a configured secret. */
export function deriveKey(secret: string): Buffer {
  return createHash('sha256').update(`portico key encryption\0${secret}`, 'utf8').digest()
}

/**
 * A 256-bit key for one purpose (HKDF-SHA256, RFC 5869), derived from the key-encryption
 * key: every instance sharing the secret derives the same one, and no purpose's key tells
 * anything of another's.
 */
export function subkey(key: Buffer, purpose: string): Buffer {
  return Buffer.from(crypto.hkdfSync('sha256', key, Buffer.alloc(0), purpose, 32))
}

/** AES-256-GCM; the output is `v1.<iv>.<ciphertext>.<tag>` in base64url. */
export function encrypt(key: Buffer, plaintext: string, context: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  cipher.setAAD(Buffer.from(context, 'utf8'))
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return ['v1', iv, body, cipher.getAuthTag()]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.')
}

/** Reverses {@link encrypt}; throws when the key, the context or the bytes are wrong. */
export function decrypt(key: Buffer, sealed: string, context: string): string {
  const [version, iv, body, tag] = sealed.split('.')
  if (version !== 'v1' || !iv || !body || !tag) throw new Error('unknown encrypted format')
  // A pinned tag length: otherwise a truncated (4-byte) tag would still verify.
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), {
    authTagLength: 16,
  })
  decipher.setAAD(Buffer.from(context, 'utf8'))
  decipher.setAuthTag(Buffer.from(tag, 'base64url'))
  return Buffer.concat([
    decipher.update(Buffer.from(body, 'base64url')),
    decipher.final(),
  ]).toString('utf8')
}
