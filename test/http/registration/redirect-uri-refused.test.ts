import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { countClients, LOOPBACK, register } from '../../support/registration.js'
import { startTestServer, type TestServer } from '../../support/server.js'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server?.close()
})

/** Spellings a URL parser might rewrite to 127.0.0.1, or that break the rule outright. */
const REFUSED: ReadonlyArray<readonly [label: string, uri: string]> = [
  ['127.1 shorthand', 'http://127.1:8080/cb'],
  ['127.0.1 shorthand', 'http://127.0.1:8080/cb'],
  ['hexadecimal address', 'http://0x7f.0.0.1:8080/cb'],
  ['hexadecimal number', 'http://0x7f000001:8080/cb'],
  ['one decimal number', 'http://2130706433:8080/cb'],
  ['octal address', 'http://0177.0.0.1:8080/cb'],
  ['zero-padded octets', 'http://127.000.000.001:8080/cb'],
  ['IPv4-mapped IPv6', 'http://[::ffff:127.0.0.1]:8080/cb'],
  ['IPv4-mapped IPv6 in hex', 'http://[::ffff:7f00:1]:8080/cb'],
  ['localhost', 'http://localhost:8080/cb'],
  ['[::1]', 'http://[::1]:8080/cb'],
  ['[::1] written out', 'http://[0:0:0:0:0:0:0:1]:8080/cb'],
  ['another loopback address', 'http://127.0.0.2:8080/cb'],
  ['the unspecified address', 'http://0.0.0.0:8080/cb'],
  ['upper-case scheme', 'HTTP://127.0.0.1:8080/cb'],
  ['mixed-case scheme', 'Http://127.0.0.1:8080/cb'],
  ['trailing dot on the host', 'http://127.0.0.1.:8080/cb'],
  ['full-width digits', 'http://１２７.0.0.1:8080/cb'],
  ['ideographic full stop', 'http://127。0.0.1:8080/cb'],
  ['%2e%2e segment', 'http://127.0.0.1:8080/%2e%2e/cb'],
  ['%2E segment', 'http://127.0.0.1:8080/a/%2E/cb'],
  ['encoded slash', 'http://127.0.0.1:8080/a%2fb'],
  ['encoded backslash', 'http://127.0.0.1:8080/a%5Cb'],
  ['encoded NUL', 'http://127.0.0.1:8080/cb%00'],
  ['malformed percent escape', 'http://127.0.0.1:8080/cb%zz'],
  ['dangling percent', 'http://127.0.0.1:8080/cb%'],
  ['.. segment', 'http://127.0.0.1:8080/a/../cb'],
  ['trailing .. segment', 'http://127.0.0.1:8080/cb/..'],
  ['. segment', 'http://127.0.0.1:8080/./cb'],
  ['double slash in the path', 'http://127.0.0.1:8080//cb'],
  ['double slash inside the path', 'http://127.0.0.1:8080/a//b'],
  ['backslash in the path', 'http://127.0.0.1:8080/a\\b'],
  ['backslash for the first slash', 'http://127.0.0.1:8080\\cb'],
  ['backslashes for the authority slashes', 'http:\\\\127.0.0.1:8080/cb'],
  ['one slash after the scheme', 'http:/127.0.0.1:8080/cb'],
  ['scheme-relative', '//127.0.0.1:8080/cb'],
  ['no scheme', '127.0.0.1:8080/cb'],
  ['user-info', 'http://user@127.0.0.1:8080/cb'],
  ['user-info with password', 'http://user:pass@127.0.0.1:8080/cb'],
  ['empty user-info', 'http://@127.0.0.1:8080/cb'],
  ['no port', 'http://127.0.0.1/cb'],
  ['empty port', 'http://127.0.0.1:/cb'],
  ['port 0', 'http://127.0.0.1:0/cb'],
  ['port 65536', 'http://127.0.0.1:65536/cb'],
  ['port 99999', 'http://127.0.0.1:99999/cb'],
  ['leading-zero port', 'http://127.0.0.1:08080/cb'],
  ['signed port', 'http://127.0.0.1:+8080/cb'],
  ['two ports', 'http://127.0.0.1:8080:9090/cb'],
  ['no path', 'http://127.0.0.1:8080'],
  ['query', 'http://127.0.0.1:8080/cb?x=1'],
  ['empty query', 'http://127.0.0.1:8080/cb?'],
  ['fragment', 'http://127.0.0.1:8080/cb#x'],
  ["empty fragment '#'", 'http://127.0.0.1:8080/cb#'],
  ['https', 'https://127.0.0.1:8080/cb'],
  ['fixed https callback', 'https://app.example/cb'],
  ['custom scheme, reverse domain', 'com.example.app:/oauth2redirect'],
  ['custom scheme with authority', 'myapp://callback'],
  ['out-of-band URN', 'urn:ietf:wg:oauth:2.0:oob'],
  ['wildcard port', 'http://127.0.0.1:*/cb'],
  ['wildcard host', 'http://*:8080/cb'],
  ['wildcard octet', 'http://127.0.0.*:8080/cb'],
  ['javascript:', 'javascript:alert(1)'],
  ['javascript: in capitals', 'JAVASCRIPT:alert(document.cookie)'],
  ['data:', 'data:text/html,<script>alert(1)</script>'],
  ['file:', 'file:///etc/passwd'],
  ['leading space', ' http://127.0.0.1:8080/cb'],
  ['trailing space', 'http://127.0.0.1:8080/cb '],
  ['space in the path', 'http://127.0.0.1:8080/c b'],
  ['tab', 'http://127.0.0.1:8080/c\tb'],
  ['newline', 'http://127.0.0.1:8080/cb\n'],
  ['CR LF injection', 'http://127.0.0.1:8080/cb\r\nSet-Cookie: x=1'],
  ['NUL character', 'http://127.0.0.1:8080/cb\u0000'],
  ['DEL character', 'http://127.0.0.1:8080/cb\u007f'],
  ['non-ASCII path', 'http://127.0.0.1:8080/café'],
  ['right-to-left override', 'http://127.0.0.1:8080/\u202ebc'],
  ['very long URI', `http://127.0.0.1:8080/${'a'.repeat(4000)}`],
  ['empty string', ''],
]

async function expectRefusal(body: unknown, rule = true): Promise<string> {
  const before = await countClients(server)
  const answer = await register(server, body)
  expect(answer.status).toBe(400)
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/)
  expect(answer.headers.get('cache-control')).toBe('no-store')
  expect(Object.keys(answer.body).sort()).toEqual(['error', 'error_description'])
  expect(answer.body.error).toBe('invalid_redirect_uri')
  expect(typeof answer.body.error_description).toBe('string')
  if (rule) expect(answer.body.error_description).toContain('http://127.0.0.1:<port>/<path>')
  expect(await countClients(server)).toBe(before)
  return answer.body.error_description as string
}

describe('registration refuses every redirect URI not written exactly as http://127.0.0.1:<port>/<path>', () => {
  it('covers at least 30 refused spellings', () => {
    expect(REFUSED.length).toBeGreaterThanOrEqual(30)
  })

  it.each(REFUSED)('refuses %s with invalid_redirect_uri, storing nothing', async (_label, uri) => {
    await expectRefusal({ redirect_uris: [uri] })
  })

  it('refuses the whole registration when one of several URIs is refused', async () => {
    await expectRefusal({ redirect_uris: [LOOPBACK, 'http://localhost:8080/cb'] })
    await expectRefusal({ redirect_uris: ['http://127.1:8080/cb', LOOPBACK] })
  })

  it.each([
    ['a number', 42],
    ['null', null],
    ['an object', { uri: LOOPBACK }],
    ['an array', [LOOPBACK]],
    ['a boolean', true],
  ])('refuses a redirect_uris entry that is %s', async (_label, entry) => {
    await expectRefusal({ redirect_uris: [LOOPBACK, entry] })
  })

  it('names the refused URI in the description, shortened and escaped', async () => {
    const description = await expectRefusal({ redirect_uris: ['http://localhost:8080/cb'] })
    expect(description).toContain("'http://localhost:8080/cb'")
    const long = await expectRefusal({
      redirect_uris: [`http://127.0.0.1:8080/${'a'.repeat(4000)}`],
    })
    expect(long.length).toBeLessThan(400)
    const control = await expectRefusal({ redirect_uris: ['http://127.0.0.1:8080/cb\r\nX: y'] })
    expect(control).not.toMatch(/[\r\n]/)
  })

  it('refuses the same spellings even when loopback host names are allowed', async () => {
    const relaxed = await startTestServer({ env: { PORTICO_ALLOW_LOOPBACK_HOSTNAMES: 'true' } })
    try {
      for (const uri of [
        'http://LOCALHOST:8080/cb',
        'http://localhost.:8080/cb',
        'http://localhost/cb',
        'http://localhost:0/cb',
        'https://localhost:8080/cb',
        'http://[0:0:0:0:0:0:0:1]:8080/cb',
        'http://[::ffff:127.0.0.1]:8080/cb',
        'http://[::1]:8080/cb#x',
        'http://127.1:8080/cb',
      ]) {
        const answer = await register(relaxed, { redirect_uris: [uri] })
        expect(answer.status, uri).toBe(400)
        expect(answer.body.error, uri).toBe('invalid_redirect_uri')
      }
      expect(await countClients(relaxed)).toBe(0)
    } finally {
      await relaxed.close()
    }
  })
})
