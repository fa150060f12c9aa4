import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { decrypt, deriveKey, digest, encrypt, secretMatches } from './crypto.js'

describe('secrets are stored as SHA-256 digests and compared in constant time', () => {
  it('digests with SHA-256, base64url', () => {
    expect(digest('pcs_secret')).toBe(createHash('sha256').update('pcs_secret').digest('base64url'))
    expect(digest('pcs_secret')).not.toContain('pcs_secret')
  })

  it('matches the secret that was digested, and nothing else', () => {
    const stored = digest('pcs_right')
    expect(secretMatches('pcs_right', stored)).toBe(true)
    expect(secretMatches('pcs_wrong', stored)).toBe(false)
    expect(secretMatches('pcs_righ', stored)).toBe(false)
    expect(secretMatches('', stored)).toBe(false)
    expect(secretMatches(stored, stored)).toBe(false)
  })

  it('refuses a stored digest of the wrong length or shape without throwing', () => {
    expect(secretMatches('x', '')).toBe(false)
    expect(secretMatches('x', 'abc')).toBe(false)
    expect(secretMatches('x', `${digest('x')}AA`)).toBe(false)
    expect(secretMatches('x', '!!!not base64!!!')).toBe(false)
  })
})

describe('private keys are sealed with AES-256-GCM under the key-encryption key', () => {
  const key = deriveKey('a-configured-secret-of-32-characters!')
  const other = deriveKey('another-configured-secret-32-characters')

  it('derives a 256-bit key, different per secret', () => {
    expect(key).toHaveLength(32)
    expect(key.equals(other)).toBe(false)
    expect(deriveKey('a-configured-secret-of-32-characters!').equals(key)).toBe(true)
  })

  it('round-trips with the same key and context, without plaintext in the output', () => {
    const sealed = encrypt(key, '{"d":"private"}', 'kid-1')
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/)
    expect(sealed).not.toContain('private')
    expect(decrypt(key, sealed, 'kid-1')).toBe('{"d":"private"}')
  })

  it('uses a fresh IV each time', () => {
    expect(encrypt(key, 'same', 'kid')).not.toBe(encrypt(key, 'same', 'kid'))
  })

  it('fails with the wrong key', () => {
    const sealed = encrypt(key, 'secret', 'kid-1')
    expect(() => decrypt(other, sealed, 'kid-1')).toThrow()
  })

  it('fails with the wrong context: a sealed key cannot be moved to another kid', () => {
    const sealed = encrypt(key, 'secret', 'kid-1')
    expect(() => decrypt(key, sealed, 'kid-2')).toThrow()
  })

  it('fails when any part was tampered with', () => {
    const [version, iv, body, tag] = encrypt(key, 'secret', 'kid').split('.') as [
      string,
      string,
      string,
      string,
    ]
    const flip = (part: string) => {
      const bytes = Buffer.from(part, 'base64url')
      bytes[0] = (bytes[0] ?? 0) ^ 1
      return bytes.toString('base64url')
    }
    expect(() => decrypt(key, [version, flip(iv), body, tag].join('.'), 'kid')).toThrow()
    expect(() => decrypt(key, [version, iv, flip(body), tag].join('.'), 'kid')).toThrow()
    expect(() => decrypt(key, [version, iv, body, flip(tag)].join('.'), 'kid')).toThrow()
    expect(() => decrypt(key, [version, iv, body].join('.'), 'kid')).toThrow()
    expect(() => decrypt(key, ['v2', iv, body, tag].join('.'), 'kid')).toThrow()
  })

  it('fails with a truncated authentication tag (which would weaken GCM to a 32-bit check)', () => {
    const [version, iv, body, tag] = encrypt(key, 'secret', 'kid').split('.') as [
      string,
      string,
      string,
      string,
    ]
    const short = Buffer.from(tag, 'base64url').subarray(0, 4).toString('base64url')
    expect(() => decrypt(key, [version, iv, body, short].join('.'), 'kid')).toThrow()
  })
})
