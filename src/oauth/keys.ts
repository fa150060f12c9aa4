import { createPrivateKey, sign as cryptoSign, type JsonWebKey, type KeyObject } from 'node:crypto'
import {
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
  type JWTPayload,
} from 'jose'
import type { Clock } from '../platform/clock.js'
import { decrypt, encrypt } from '../platform/crypto.js'
import type { SigningKeyRow, SigningKeyStore } from '../storage/signing-keys.js'

export type SigningAlg = SigningKeyRow['alg']
export const SIGNING_ALGS: readonly SigningAlg[] = ['RS256', 'ES256']

/** How often an instance re-reads the keys, so a rotation elsewhere reaches it within seconds. */
const REFRESH_MS = 5_000

interface LoadedKey {
  readonly kid: string
  readonly alg: SigningAlg
  readonly publicJwk: JWK
  readonly retiredAt: number | null
  /** The private half as Node's own key, which signs without WebCrypto's overhead. */
  readonly privateKey: KeyObject
}

export interface KeyRingOptions {
  readonly store: SigningKeyStore
  readonly clock: Clock
  readonly encryptionKey: Buffer
  /** How long a retired key stays published: the longest life of anything it signed. */
  readonly retentionMs: number
}

/**
 * The signing keys: kept in the database (private halves encrypted), cached briefly in
 * memory, published as a JWKS. One active key per algorithm signs; retired keys stay in
 * the JWKS for `retentionMs` so that what they signed can still be verified.
 */
export function createKeyRing(options: KeyRingOptions) {
  const { store, clock, encryptionKey, retentionMs } = options
  let cache: { loadedAt: number; keys: LoadedKey[] } | undefined

  async function load(): Promise<LoadedKey[]> {
    const now = clock.now()
    if (cache && now - cache.loadedAt < REFRESH_MS) return cache.keys
    const rows = await store.listPublished(now - retentionMs)
    const previous = new Map(cache?.keys.map((k) => [k.kid, k]))
    const keys = await Promise.all(
      rows.map(async (row) => {
        const known = previous.get(row.kid)
        if (known && known.retiredAt === row.retired_at) return known
        const privateJwk = JSON.parse(
          decrypt(encryptionKey, row.private_jwk_sealed, row.kid),
        ) as JWK
        return {
          kid: row.kid,
          alg: row.alg,
          publicJwk: JSON.parse(row.public_jwk) as JWK,
          retiredAt: row.retired_at,
          privateKey: await importPrivateKey(privateJwk, row.alg),
        }
      }),
    )
    cache = { loadedAt: now, keys }
    return keys
  }

  return {
    /** The JSON Web Key Set to publish: public halves only. */
    async jwks(): Promise<{ keys: JWK[] }> {
      return { keys: (await load()).map((k) => k.publicJwk) }
    },

    /** Signs a JWT with the newest active key of `alg`. */
    async sign(payload: JWTPayload, alg: SigningAlg, typ = 'JWT'): Promise<string> {
      const key = (await load()).find((k) => k.alg === alg && k.retiredAt === null)
      if (!key) throw new Error(`no active ${alg} signing key`)
      return signJws({ alg, kid: key.kid, typ }, payload, key.privateKey)
    },

    /** Forgets the cache, so the next use reads the database. */
    invalidate(): void {
      cache = undefined
    },
  }
}

export type KeyRing = ReturnType<typeof createKeyRing>

/** A private JWK as a Node key object, checked by jose first as before (alg and key type). */
async function importPrivateKey(jwk: JWK, alg: SigningAlg): Promise<KeyObject> {
  await importJWK(jwk, alg)
  return createPrivateKey({ key: jwk as JsonWebKey, format: 'jwk' })
}

/**
 * A compact JWS (RFC 7515 §7.1) signed with node:crypto: RS256 is RSASSA-PKCS1-v1_5 with
 * SHA-256, ES256 ECDSA P-256 with SHA-256 and the signature as r‖s (RFC 7518 §3.4). The
 * same bytes as jose's SignJWT for RS256, for a quarter less CPU (npm run bench: an ID
 * token's signature is most of a code exchange), and signed on the thread pool.
 */
function signJws(
  header: Record<string, unknown>,
  payload: JWTPayload,
  key: KeyObject,
): Promise<string> {
  const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(payload))}`
  const options = header.alg === 'ES256' ? { key, dsaEncoding: 'ieee-p1363' as const } : key
  return new Promise((resolve, reject) => {
    cryptoSign('sha256', Buffer.from(input), options, (error, signature) => {
      if (error) reject(error)
      else resolve(`${input}.${signature.toString('base64url')}`)
    })
  })
}

function base64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url')
}

/** Creates a key pair for `alg`, sealed for storage. */
export async function createSigningKey(
  alg: SigningAlg,
  encryptionKey: Buffer,
  now: number,
): Promise<SigningKeyRow> {
  const { publicKey, privateKey } = await generateKeyPair(alg, {
    extractable: true,
    modulusLength: 2048,
  })
  const publicJwk = await exportJWK(publicKey)
  const kid = await calculateJwkThumbprint(publicJwk)
  const privateJwk = await exportJWK(privateKey)
  return {
    kid,
    alg,
    public_jwk: JSON.stringify({ ...publicJwk, kid, alg, use: 'sig' }),
    private_jwk_sealed: encrypt(encryptionKey, JSON.stringify(privateJwk), kid),
    created_at: now,
    retired_at: null,
  }
}

/** Creates an active key for every algorithm that has none. Run under the exclusive lock. */
export async function ensureSigningKeys(
  store: SigningKeyStore,
  encryptionKey: Buffer,
  now: number,
): Promise<string[]> {
  const active = new Set(
    (await store.listPublished(now)).filter((k) => k.retired_at === null).map((k) => k.alg),
  )
  const created: string[] = []
  for (const alg of SIGNING_ALGS) {
    if (active.has(alg)) continue
    const row = await createSigningKey(alg, encryptionKey, now)
    await store.insert(row)
    created.push(row.kid)
  }
  return created
}

/** Retires the active keys and adds a new one of each algorithm. */
export async function rotateSigningKeys(
  store: SigningKeyStore,
  encryptionKey: Buffer,
  now: number,
): Promise<SigningKeyRow[]> {
  const rows: SigningKeyRow[] = []
  for (const alg of SIGNING_ALGS) {
    const row = await createSigningKey(alg, encryptionKey, now)
    await store.retireActive(alg, now)
    await store.insert(row)
    rows.push(row)
  }
  return rows
}
