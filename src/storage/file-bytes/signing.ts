import { createHmac, timingSafeEqual } from 'node:crypto'
import type { Config } from '../../config.js'
import { loadKeyEncryptionKey } from '../../platform/key-encryption.js'

/** How long a signed link to a private file works, at least (seconds). */
export const SIGNED_URL_TTL = 15 * 60
/** Expiries are rounded up to this (seconds): the same link for a while, so ETags hold still. */
const EXPIRY_STEP = 5 * 60

const keys = new WeakMap<Config, Buffer>()

/**
 * The key that signs file links, derived from the key-encryption secret every instance
 * shares (PORTICO_KEY_ENCRYPTION_SECRET, or the secret file beside SQLite).
 */
function signingKey(config: Config): Buffer {
  let key = keys.get(config)
  if (!key) {
    key = createHmac('sha256', loadKeyEncryptionKey(config)).update('portico file links').digest()
    keys.set(config, key)
  }
  return key
}

function signatureOf(config: Config, id: string, expires: number): Buffer {
  return createHmac('sha256', signingKey(config)).update(`${id}.${expires}`).digest()
}

/** Where a file is served: `/files/{id}/{filename}`. */
export function filePath(id: string, filename: string): string {
  return `/files/${id}/${encodeURIComponent(filename)}`
}

/** A public file's plain URL. */
export function publicFileUrl(config: Config, id: string, filename: string): string {
  return `${config.issuer}${filePath(id, filename)}`
}

/** A link to a private file that works for {@link SIGNED_URL_TTL} seconds or a little more. */
export function signedFileUrl(config: Config, id: string, filename: string, now: number): string {
  const expires = Math.ceil((now / 1000 + SIGNED_URL_TTL) / EXPIRY_STEP) * EXPIRY_STEP
  const signature = signatureOf(config, id, expires).toString('base64url')
  return `${config.issuer}${filePath(id, filename)}?expires=${expires}&signature=${signature}`
}

/** The URL a file record shows: plain when public, signed when private. */
export function fileUrl(
  config: Config,
  file: { id: string; filename: string; visibility: string },
  now: number,
): string {
  return file.visibility === 'public'
    ? publicFileUrl(config, file.id, file.filename)
    : signedFileUrl(config, file.id, file.filename, now)
}

/** Whether a link's expiry is in the future and its signature is ours (constant time). */
export function signatureValid(
  config: Config,
  id: string,
  expires: unknown,
  signature: unknown,
  now: number,
): boolean {
  if (typeof expires !== 'string' || !/^\d{1,12}$/.test(expires)) return false
  if (typeof signature !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(signature)) return false
  if (Number(expires) * 1000 <= now) return false
  const expected = signatureOf(config, id, Number(expires))
  const presented = Buffer.from(signature, 'base64url')
  return presented.length === expected.length && timingSafeEqual(presented, expected)
}
