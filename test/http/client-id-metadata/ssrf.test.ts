import type { LookupAddress } from 'node:dns'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseConfig } from '../../../src/config.js'
import { ownLoopbackAddress } from '../../../src/main.js'
import type { Resolver } from '../../../src/platform/outbound/pinned-fetch.js'
import {
  type Certificate,
  type DocumentServer,
  makeCertificate,
  startDocumentServer,
} from '../../support/document-server.js'
import {
  authorizePath,
  Browser,
  createPerson,
  createPkce,
  runAuthorization,
  type TestPerson,
} from '../../support/flow.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { expectErrorPage } from '../authorize/support.js'

/**
 * Server-side request forgery through Client ID Metadata Documents: a client_id URL must
 * never make Portico reach the school's own network. DNS is answered by a test resolver
 * handed to this Portico only (it cannot be configured from the environment).
 */

const CALLBACK = 'http://127.0.0.1:8765/callback'
const PATH = '/client.json'

let certificate: Certificate
let documents: DocumentServer
/** The same port on a second loopback address: what the "internal network" would serve. */
let internal: DocumentServer
let server: TestServer
let person: TestPerson
const answers = new Map<string, (call: number) => readonly LookupAddress[]>()
const lookups = new Map<string, number>()

const testResolver: Resolver = async (hostname) => {
  const call = (lookups.get(hostname) ?? 0) + 1
  lookups.set(hostname, call)
  const answer = answers.get(hostname)
  if (!answer) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' })
  return answer(call)
}

function v(address: string): LookupAddress {
  return { address, family: address.includes(':') ? 6 : 4 }
}

function document(url: string) {
  return { client_id: url, client_name: 'Agent', redirect_uris: [CALLBACK] }
}

beforeAll(async () => {
  certificate = await makeCertificate()
  documents = await startDocumentServer(certificate)
  internal = await startDocumentServer(certificate, '127.0.0.2', documents.port)
  server = await startTestServer({
    outbound: { ca: documents.ca, resolve: testResolver, timeoutMs: 1500 },
    env: { PORTICO_CLIENT_DOCUMENT_HOST_FETCH_RATE_LIMIT: '10000' },
  })
  person = await createPerson(server)
})
afterAll(async () => {
  await server?.close()
  await documents?.close()
  await internal?.close()
})

let counter = 0
/** A fresh host name under portico.test answered by `answer`, with its document URL. */
function host(answer: (call: number) => readonly LookupAddress[]): { name: string; url: string } {
  counter += 1
  const name = `h${counter}.portico.test`
  answers.set(name, answer)
  const url = `https://${name}:${documents.port}${PATH}?n=${counter}`
  return { name, url }
}

async function expectRefused(clientId: string, reason: RegExp): Promise<void> {
  const response = await new Browser(server).request(
    authorizePath({ clientId, redirectUri: CALLBACK }, createPkce()),
  )
  const page = await expectErrorPage(response)
  expect(page).toContain('invalid_client')
  const logged = server.logs
    .filter((l) => l.event === 'client_document_refused' && l.client_id === clientId)
    .map((l) => String(l.reason))
  expect(logged.join(' ')).toMatch(reason)
}

/** RFC 6890 and successors: every special-use range, written as a resolver would answer it. */
const SPECIAL_USE: ReadonlyArray<[string, string]> = [
  ['this network (0.0.0.0/8)', '0.0.0.0'],
  ['private 10.0.0.0/8', '10.1.2.3'],
  ['private 172.16.0.0/12', '172.16.5.4'],
  ['private 192.168.0.0/16', '192.168.1.1'],
  ['carrier-grade NAT 100.64.0.0/10', '100.64.0.1'],
  ['loopback 127.0.0.0/8, another address than Portico’s', '127.0.0.2'],
  ['link-local, the cloud metadata address', '169.254.169.254'],
  ['IETF protocol assignments 192.0.0.0/24', '192.0.0.8'],
  ['documentation TEST-NET-1', '192.0.2.1'],
  ['benchmarking 198.18.0.0/15', '198.18.0.1'],
  ['documentation TEST-NET-3', '203.0.113.9'],
  ['multicast 224.0.0.0/4', '224.0.0.1'],
  ['reserved 240.0.0.0/4', '240.0.0.1'],
  ['limited broadcast', '255.255.255.255'],
  ['IPv6 unspecified', '::'],
  ['IPv6 loopback', '::1'],
  ['IPv4-mapped loopback', '::ffff:127.0.0.1'],
  ['IPv4-mapped metadata address', '::ffff:169.254.169.254'],
  ['IPv4-translated (SIIT)', '::ffff:0:a00:1'],
  ['NAT64 well-known prefix 64:ff9b::/96', '64:ff9b::a9fe:a9fe'],
  ['NAT64 local-use prefix 64:ff9b:1::/48', '64:ff9b:1::a00:1'],
  ['discard-only 100::/64', '100::1'],
  ['Teredo 2001::/32', '2001::1'],
  ['documentation 2001:db8::/32', '2001:db8::1'],
  ['6to4 2002::/16', '2002:a00:1::1'],
  ['unique local fc00::/7', 'fd12:3456::1'],
  ['link-local fe80::/10', 'fe80::1'],
  ['site-local fec0::/10', 'fec0::1'],
  ['multicast ff00::/8', 'ff02::1'],
  ['IPv4-compatible (outside 2000::/3)', '::a00:1'],
]

describe('SSRF: a document on a host resolving to a special-use address is never fetched', () => {
  for (const [range, address] of SPECIAL_USE) {
    it(`refuses ${range} (${address})`, async () => {
      const { url } = host(() => [v(address)])
      await expectRefused(url, /special_use_address/)
    })
  }

  it('refuses a host when any one of its addresses is special-use', async () => {
    const { url } = host(() => [v('127.0.0.1'), v('10.0.0.1')])
    await expectRefused(url, /special_use_address_private/)
  })

  it('refuses special-use IP literals in the URL itself', async () => {
    for (const literal of ['10.0.0.1', '169.254.169.254', '[::ffff:a9fe:a9fe]', '[fd00::1]']) {
      await expectRefused(`https://${literal}/client.json`, /special_use_address/)
    }
  })

  it('refuses a second loopback address, different from the one Portico serves on', async () => {
    internal.json(PATH, document(internal.url(PATH)))
    await expectRefused(internal.url(PATH), /special_use_address_loopback/)
    const { url } = host(() => [v('127.0.0.2')])
    await expectRefused(url, /special_use_address_loopback/)
    expect(internal.hits(PATH)).toBe(0)
  })
})

describe('SSRF: DNS rebinding', () => {
  it('connects to the address it checked; a different answer to a second lookup is never asked for', async () => {
    const { name, url } = host((call) => [v(call === 1 ? '127.0.0.1' : '127.0.0.2')])
    const path = `/rebind-${counter}.json`
    const target = url.replace(`${PATH}?n=${counter}`, path)
    documents.json(path, document(target))
    internal.json(path, document(target))
    const flow = await runAuthorization(server, { clientId: target, redirectUri: CALLBACK }, person)
    expect(flow.code).toBeDefined()
    expect(documents.hits(path)).toBe(1)
    expect(internal.hits(path)).toBe(0)
    expect(lookups.get(name)).toBe(1)
  })

  it('refuses when the first answer is special-use, whatever a second would say', async () => {
    const { name, url } = host((call) => [v(call === 1 ? '10.0.0.7' : '127.0.0.1')])
    const path = `/rebind-${counter}.json`
    const target = url.replace(`${PATH}?n=${counter}`, path)
    documents.json(path, document(target))
    await expectRefused(target, /special_use_address_private/)
    expect(documents.hits(path)).toBe(0)
    expect(lookups.get(name)).toBe(1)
  })
})

describe('fetch budgets', () => {
  let limited: TestServer
  beforeAll(async () => {
    limited = await startTestServer({
      outbound: { ca: documents.ca, resolve: testResolver, timeoutMs: 1500 },
      env: {
        PORTICO_CLIENT_DOCUMENT_FETCH_RATE_LIMIT: '3',
        PORTICO_CLIENT_DOCUMENT_HOST_FETCH_RATE_LIMIT: '2',
      },
    })
  })
  afterAll(async () => {
    await limited?.close()
  })

  it('refuses a flood: per host first, then for all hosts together, without fetching', async () => {
    const open = (clientId: string) =>
      new Browser(limited).request(authorizePath({ clientId, redirectUri: CALLBACK }, createPkce()))
    const paths = [1, 2, 3].map((n) => `/flood-${n}.json`)
    for (const path of paths) documents.json(path, document(documents.url(path)))
    for (const path of paths.slice(0, 2)) expect((await open(documents.url(path))).status).toBe(303)
    await expectErrorPage(await open(documents.url(paths[2] ?? '')))
    // The refusal for the flooded host spent nothing of the budget all hosts share: another
    // host still gets the last fetch of the minute (its answer is refused for what it is).
    await expectErrorPage(await open(host(() => [v('127.0.0.1')]).url))
    await expectErrorPage(await open(host(() => [v('127.0.0.1')]).url))
    const reasons = limited.logs
      .filter((l) => l.event === 'client_document_refused')
      .map((l) => String(l.reason))
    expect(reasons).toHaveLength(3)
    expect(reasons[0]).toBe('fetch budget exhausted (this host)')
    expect(reasons[1]).not.toMatch(/budget/)
    expect(reasons[2]).toBe('fetch budget exhausted (all hosts)')
    expect(documents.hits(paths[2] ?? '')).toBe(0)
  })
})

describe('the loopback exception (draft section 6.5) applies only to a Portico on loopback', () => {
  it('is Portico’s own HOST when issuer and listener are both loopback, nothing otherwise', () => {
    const config = (issuer: string, host: string) =>
      parseConfig({ PORTICO_ISSUER: issuer, HOST: host, DATABASE_URL: 'sqlite::memory:' })
    expect(ownLoopbackAddress(config('http://127.0.0.1:3000', '127.0.0.1'))).toBe('127.0.0.1')
    expect(ownLoopbackAddress(config('http://localhost:3000', '::1'))).toBe('::1')
    // Behind a TLS proxy on the same machine: loopback listener, public issuer.
    expect(ownLoopbackAddress(config('https://school.example', '127.0.0.1'))).toBeUndefined()
    expect(ownLoopbackAddress(config('http://127.0.0.1:3000', '0.0.0.0'))).toBeUndefined()
  })
})
