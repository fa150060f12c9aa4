import { describe, expect, it } from 'vitest'
import type { PinnedFetchResult } from '../../platform/outbound/pinned-fetch.js'
import type { Client } from '../../storage/clients.js'
import { cacheSeconds } from './cache-lifetime.js'
import {
  ClientDocumentRefused,
  createClientResolver,
  FAILURE_PAUSE_MS,
  STALE_MS,
} from './resolve-client.js'

const URL_ID = 'https://agent.example/client.json'
const DOC = JSON.stringify({ client_id: URL_ID, redirect_uris: ['http://127.0.0.1/cb'] })

function setup(
  answer: () => Promise<PinnedFetchResult>,
  budgets: { all?: number; host?: number } = {},
) {
  let now = 1_000_000
  let fetches = 0
  const rows = new Map<string, Client>()
  const spent = new Map<string, number>()
  const charged: string[] = []
  const resolver = createClientResolver({
    clients: {
      find: async (id) => rows.get(id),
      upsertMetadataDocumentClient: async (client) => {
        rows.set(client.clientId, client)
      },
    },
    trusted: { isTrusted: async () => false },
    rateLimiter: {
      hit: async (bucket, key, limit) => {
        charged.push(bucket)
        const count = (spent.get(`${bucket}:${key}`) ?? 0) + 1
        spent.set(`${bucket}:${key}`, count)
        return { allowed: count <= limit, retryAfter: count <= limit ? 0 : 60 }
      },
    },
    clock: { now: () => now },
    fetchDocument: () => {
      fetches += 1
      return answer()
    },
    settings: {
      enabled: true,
      fetchRateLimit: budgets.all ?? 100,
      hostFetchRateLimit: budgets.host ?? 100,
      allowLoopbackHostnames: false,
    },
  })
  return {
    resolver,
    rows,
    charged,
    fetches: () => fetches,
    advance: (ms: number) => {
      now += ms
    },
  }
}

const ok = (cacheControl?: string): PinnedFetchResult => ({
  ok: true,
  body: DOC,
  cacheControl,
  address: '192.0.2.1',
})

describe('Cache-Control bounds (30 s .. 24 h)', () => {
  it.each([
    [undefined, 300],
    ['max-age=0', 30],
    ['no-store', 30],
    ['public, max-age=600', 600],
    ['max-age=999999999', 86400],
    ['max-age=abc', 300],
  ])('%s keeps a document %i seconds', (header, seconds) => {
    expect(cacheSeconds(header)).toBe(seconds)
  })

  it('fetches again only once the bounded lifetime is over', async () => {
    const t = setup(async () => ok('max-age=0'))
    await t.resolver.find(URL_ID)
    t.advance(29_000)
    await t.resolver.find(URL_ID)
    expect(t.fetches()).toBe(1)
    t.advance(2_000)
    await t.resolver.find(URL_ID)
    expect(t.fetches()).toBe(2)
  })
})

describe('coalescing and failures', () => {
  it('shares one fetch between concurrent requests for one URL', async () => {
    let release: (result: PinnedFetchResult) => void = () => {}
    const t = setup(() => new Promise((resolve) => (release = resolve)))
    const waiting = Array.from({ length: 5 }, () => t.resolver.find(URL_ID))
    // Let the first request reach the fetch (after counting it against the budgets).
    while (t.fetches() === 0) await new Promise((resolve) => setImmediate(resolve))
    release(ok())
    const clients = await Promise.all(waiting)
    expect(t.fetches()).toBe(1)
    expect(clients.every((c) => c?.clientId === URL_ID)).toBe(true)
  })

  it('never keeps an error as a document: a short pause, then a new fetch', async () => {
    let answer: PinnedFetchResult = { ok: false, reason: 'http_status_500' }
    const t = setup(async () => answer)
    await expect(t.resolver.find(URL_ID)).rejects.toBeInstanceOf(ClientDocumentRefused)
    answer = ok()
    await expect(t.resolver.find(URL_ID)).rejects.toBeInstanceOf(ClientDocumentRefused)
    expect(t.fetches()).toBe(1)
    t.advance(FAILURE_PAUSE_MS + 1)
    expect((await t.resolver.find(URL_ID))?.redirectUris).toEqual(['http://127.0.0.1/cb'])
    expect(t.fetches()).toBe(2)
  })

  it('does not look a pci_ client id up as a document', async () => {
    const t = setup(async () => ok())
    expect(await t.resolver.find('pci_abc')).toBeUndefined()
    expect(t.fetches()).toBe(0)
  })
})

describe('the stored copy of a document client', () => {
  it('is written again after `portico clients delete`, so grants never name a missing row', async () => {
    const t = setup(async () => ok())
    await t.resolver.find(URL_ID)
    expect(t.rows.has(URL_ID)).toBe(true)
    t.rows.delete(URL_ID)
    expect((await t.resolver.find(URL_ID))?.clientId).toBe(URL_ID)
    expect(t.rows.has(URL_ID)).toBe(true)
  })
})

describe('fetch budgets cannot lock out known agents (budget exhaustion)', () => {
  it('charges the per-host budget first: a refused host spends nothing of the global one', async () => {
    const t = setup(async () => ok(), { host: 1, all: 100 })
    await t.resolver.find(URL_ID)
    t.advance(FAILURE_PAUSE_MS + 1)
    await t.resolver.find('https://agent.example/other.json').catch(() => undefined)
    expect(t.charged).toEqual(['cimd_fetch_host', 'cimd_fetch', 'cimd_fetch_host'])
  })

  it('serves the last valid document stale when a budget refuses, for at most STALE_MS', async () => {
    const t = setup(async () => ok('max-age=60'), { host: 1 })
    await t.resolver.find(URL_ID)
    t.advance(61_000)
    // The host budget is spent: the document that was valid is served, not refused.
    expect((await t.resolver.find(URL_ID))?.clientId).toBe(URL_ID)
    expect(t.fetches()).toBe(1)
    t.advance(STALE_MS)
    await expect(t.resolver.find(URL_ID)).rejects.toBeInstanceOf(ClientDocumentRefused)
  })

  it('serves the last valid document stale when its fetch fails, never after an invalid one', async () => {
    let answer: PinnedFetchResult = ok('max-age=60')
    const t = setup(async () => answer)
    await t.resolver.find(URL_ID)
    t.advance(61_000)
    answer = { ok: false, reason: 'connection_failed' }
    expect((await t.resolver.find(URL_ID))?.clientId).toBe(URL_ID)
    expect(t.fetches()).toBe(2)
    t.advance(FAILURE_PAUSE_MS + 1)
    answer = {
      ok: true,
      body: '{"client_id":"https://elsewhere.example/"}',
      cacheControl: undefined,
      address: '192.0.2.1',
    }
    await expect(t.resolver.find(URL_ID)).rejects.toBeInstanceOf(ClientDocumentRefused)
  })
})
