import { describe, expect, it } from 'vitest'
import type { PinnedFetchResult } from '../../platform/outbound/pinned-fetch.js'
import type { Client } from '../../storage/clients.js'
import { cacheSeconds } from './cache-lifetime.js'
import { ClientDocumentRefused, createClientResolver, FAILURE_PAUSE_MS } from './resolve-client.js'

const URL_ID = 'https://agent.example/client.json'
const DOC = JSON.stringify({ client_id: URL_ID, redirect_uris: ['http://127.0.0.1/cb'] })

function setup(answer: () => Promise<PinnedFetchResult>) {
  let now = 1_000_000
  let fetches = 0
  const rows = new Map<string, Client>()
  const resolver = createClientResolver({
    clients: {
      find: async (id) => rows.get(id),
      upsertMetadataDocumentClient: async (client) => {
        rows.set(client.clientId, client)
      },
    },
    trusted: { isTrusted: async () => false },
    rateLimiter: { hit: async () => ({ allowed: true, retryAfter: 0 }) },
    clock: { now: () => now },
    fetchDocument: () => {
      fetches += 1
      return answer()
    },
    settings: {
      enabled: true,
      fetchRateLimit: 100,
      hostFetchRateLimit: 100,
      allowLoopbackHostnames: false,
    },
  })
  return {
    resolver,
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
