import { randomBytes } from 'node:crypto'
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { type Config, ConfigError } from '../config.js'
import { deriveKey } from './crypto.js'

/**
 * The key that encrypts private signing keys at rest. From PORTICO_KEY_ENCRYPTION_SECRET
 * when set; otherwise, for SQLite, from a secret file created (mode 0600) beside the
 * database. PostgreSQL serves several instances, which must share the secret: it is required.
 */
export function loadKeyEncryptionKey(config: Config): Buffer {
  if (config.keyEncryptionSecret) return deriveKey(config.keyEncryptionSecret)
  const database = config.database
  if (database.dialect === 'postgres') {
    throw new ConfigError(
      'PORTICO_KEY_ENCRYPTION_SECRET is required with PostgreSQL (every instance must share it)',
    )
  }
  if (database.file === ':memory:') return randomBytes(32)
  const file = path.join(path.dirname(database.file), 'portico.secret')
  mkdirSync(path.dirname(file), { recursive: true })
  try {
    writeFileSync(file, `${randomBytes(32).toString('base64url')}\n`, { flag: 'wx', mode: 0o600 })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600)
  const secret = readFileSync(file, 'utf8').trim()
  if (secret.length < 32) throw new ConfigError(`${file} is damaged: it holds no usable secret`)
  return deriveKey(secret)
}
