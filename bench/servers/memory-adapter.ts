import type { Adapter, AdapterPayload } from 'oidc-provider'

/** Models whose records belong to a grant, so revoking the grant removes them. */
const GRANTABLE = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
])

interface Entry {
  readonly payload: AdapterPayload
  readonly expiresAt: number
}

/**
 * oidc-provider's storage for the benchmark: plain Maps, unbounded. The adapter bundled with
 * oidc-provider keeps at most 1,000 records in an LRU, which would evict the pools of codes
 * and refresh tokens the benchmark makes beforehand; this one keeps everything until it
 * expires, as a database would. Expired records are dropped when next read.
 */
export function createMemoryAdapterFactory(): (model: string) => Adapter {
  const records = new Map<string, Entry>()
  const byUid = new Map<string, string>()
  const byUserCode = new Map<string, string>()
  const grants = new Map<string, Set<string>>()

  const read = (key: string): AdapterPayload | undefined => {
    const entry = records.get(key)
    if (!entry) return undefined
    if (entry.expiresAt <= Date.now()) {
      records.delete(key)
      return undefined
    }
    return entry.payload
  }

  return (model: string): Adapter => {
    const keyOf = (id: string) => `${model}:${id}`
    return {
      async upsert(id, payload, expiresIn) {
        const key = keyOf(id)
        const expiresAt = expiresIn ? Date.now() + expiresIn * 1000 : Number.POSITIVE_INFINITY
        records.set(key, { payload, expiresAt })
        if (model === 'Session' && payload.uid) byUid.set(payload.uid, id)
        if (payload.userCode) byUserCode.set(payload.userCode, id)
        if (GRANTABLE.has(model) && payload.grantId) {
          let members = grants.get(payload.grantId)
          if (!members) {
            members = new Set()
            grants.set(payload.grantId, members)
          }
          members.add(key)
        }
      },
      async find(id) {
        return read(keyOf(id))
      },
      async findByUid(uid) {
        const id = byUid.get(uid)
        return id === undefined ? undefined : read(keyOf(id))
      },
      async findByUserCode(userCode) {
        const id = byUserCode.get(userCode)
        return id === undefined ? undefined : read(keyOf(id))
      },
      async consume(id) {
        const payload = read(keyOf(id))
        if (payload) payload.consumed = Math.floor(Date.now() / 1000)
      },
      async destroy(id) {
        const key = keyOf(id)
        const payload = records.get(key)?.payload
        records.delete(key)
        if (payload?.grantId) grants.get(payload.grantId)?.delete(key)
      },
      async revokeByGrantId(grantId) {
        for (const key of grants.get(grantId) ?? []) records.delete(key)
        grants.delete(grantId)
      },
    }
  }
}
