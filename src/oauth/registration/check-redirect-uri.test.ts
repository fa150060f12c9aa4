import { describe, expect, it } from 'vitest'
import {
  isAllowedIntegrationUri,
  isAllowedLoopbackUri,
  isAllowedPortlessLoopbackUri,
  LOOPBACK_RULE,
  redirectUriMatches,
} from './check-redirect-uri.js'

const strict = { allowHostnames: false }
const relaxed = { allowHostnames: true }

describe('isAllowedLoopbackUri: exactly http://127.0.0.1:<port>/<path>', () => {
  it.each([
    'http://127.0.0.1:1/',
    'http://127.0.0.1:8080/callback',
    'http://127.0.0.1:65535/cb',
    'http://127.0.0.1:49152/oauth/callback/done',
    "http://127.0.0.1:3000/a-b_c.d~e!$&'()+,=:@",
    'http://127.0.0.1:3000/%41%7E',
    'http://127.0.0.1:3000/.well/known.d',
    'http://127.0.0.1:80/cb',
  ])('accepts %s', (uri) => {
    expect(isAllowedLoopbackUri(uri, strict)).toBe(true)
  })

  it.each([
    ['127.1 shorthand', 'http://127.1:8080/cb'],
    ['hexadecimal', 'http://0x7f.0.0.1:8080/cb'],
    ['one decimal number', 'http://2130706433:8080/cb'],
    ['octal', 'http://0177.0.0.1:8080/cb'],
    ['IPv4-mapped IPv6', 'http://[::ffff:127.0.0.1]:8080/cb'],
    ['another loopback address', 'http://127.0.0.2:8080/cb'],
    ['localhost', 'http://localhost:8080/cb'],
    ['[::1]', 'http://[::1]:8080/cb'],
    ['upper-case scheme', 'HTTP://127.0.0.1:8080/cb'],
    ['trailing dot', 'http://127.0.0.1.:8080/cb'],
    ['encoded dot segment', 'http://127.0.0.1:8080/%2e%2e/cb'],
    ['encoded slash', 'http://127.0.0.1:8080/a%2Fb'],
    ['encoded backslash', 'http://127.0.0.1:8080/a%5cb'],
    ['encoded NUL', 'http://127.0.0.1:8080/a%00b'],
    ['malformed escape', 'http://127.0.0.1:8080/a%zz'],
    ['dot-dot segment', 'http://127.0.0.1:8080/a/../cb'],
    ['dot segment', 'http://127.0.0.1:8080/./cb'],
    ['segment of three dots', 'http://127.0.0.1:8080/.../cb'],
    ['path parameter hiding a dot-dot segment', 'http://127.0.0.1:8080/a/..;/cb'],
    ['path parameter', 'http://127.0.0.1:8080/cb;x=1'],
    ['asterisk path', 'http://127.0.0.1:8080/*'],
    ['mixed encoded dot-dot', 'http://127.0.0.1:8080/a/%2E./cb'],
    ['dot then encoded dot', 'http://127.0.0.1:8080/a/.%2e/cb'],
    ['double-encoded dot-dot', 'http://127.0.0.1:8080/a/%252e%252e/cb'],
    ['double slash', 'http://127.0.0.1:8080//cb'],
    ['backslash', 'http://127.0.0.1:8080\\cb'],
    ['user-info', 'http://user@127.0.0.1:8080/cb'],
    ['no port', 'http://127.0.0.1/cb'],
    ['empty port', 'http://127.0.0.1:/cb'],
    ['port 0', 'http://127.0.0.1:0/cb'],
    ['port 65536', 'http://127.0.0.1:65536/cb'],
    ['leading-zero port', 'http://127.0.0.1:08080/cb'],
    ['no path', 'http://127.0.0.1:8080'],
    ['query', 'http://127.0.0.1:8080/cb?x=1'],
    ['fragment', 'http://127.0.0.1:8080/cb#x'],
    ['empty fragment', 'http://127.0.0.1:8080/cb#'],
    ['https', 'https://127.0.0.1:8080/cb'],
    ['custom scheme', 'com.example.app:/cb'],
    ['wildcard', 'http://127.0.0.1:*/cb'],
    ['javascript:', 'javascript:alert(1)'],
    ['space', 'http://127.0.0.1:8080/c b'],
    ['newline', 'http://127.0.0.1:8080/cb\n'],
    ['empty string', ''],
  ])('refuses %s', (_label, uri) => {
    expect(isAllowedLoopbackUri(uri, strict)).toBe(false)
  })

  it('refuses a URI longer than 2000 characters', () => {
    expect(isAllowedLoopbackUri(`http://127.0.0.1:8080/${'a'.repeat(2000)}`, strict)).toBe(false)
    expect(isAllowedLoopbackUri(`http://127.0.0.1:8080/${'a'.repeat(1970)}`, strict)).toBe(true)
  })

  it('accepts localhost and [::1] only when the operator allows loopback host names', () => {
    expect(isAllowedLoopbackUri('http://localhost:8080/cb', relaxed)).toBe(true)
    expect(isAllowedLoopbackUri('http://[::1]:8080/cb', relaxed)).toBe(true)
    expect(isAllowedLoopbackUri('http://LOCALHOST:8080/cb', relaxed)).toBe(false)
    expect(isAllowedLoopbackUri('http://[0:0:0:0:0:0:0:1]:8080/cb', relaxed)).toBe(false)
    expect(isAllowedLoopbackUri('http://localhost:0/cb', relaxed)).toBe(false)
    expect(isAllowedLoopbackUri('http://127.1:8080/cb', relaxed)).toBe(false)
  })

  it('states the rule with the exact form', () => {
    expect(LOOPBACK_RULE).toContain('http://127.0.0.1:<port>/<path>')
  })
})

describe('isAllowedIntegrationUri: canonical https callbacks, or loopback ones', () => {
  it.each([
    'https://app.example/cb',
    'https://app.example:8443/oauth/callback',
    'https://app.example/cb?tenant=1',
    'http://127.0.0.1:8080/cb',
  ])('accepts %s', (uri) => {
    expect(isAllowedIntegrationUri(uri)).toBe(true)
  })

  it.each([
    ['plain http', 'http://app.example/cb'],
    ['fragment', 'https://app.example/cb#x'],
    ['user-info', 'https://user:pw@app.example/cb'],
    ['upper-case host', 'https://APP.example/cb'],
    ['default port written out', 'https://app.example:443/cb'],
    ['no path', 'https://app.example'],
    ['trailing dot', 'https://app.example./cb'],
    ['dot segment', 'https://app.example/a/../cb'],
    ['encoded dot segment', 'https://app.example/%2e%2e/cb'],
    ['path parameter hiding a dot-dot segment', 'https://app.example/a/..;/cb'],
    ['asterisk path', 'https://app.example/cb/*'],
    ['backslash', 'https://app.example\\cb'],
    ['space', 'https://app.example/c b'],
    ['wildcard host', 'https://*.app.example/cb'],
    ['custom scheme', 'com.example.app:/cb'],
    ['localhost loopback', 'http://localhost:8080/cb'],
    ['not a URL', 'https://'],
  ])('refuses %s', (_label, uri) => {
    expect(isAllowedIntegrationUri(uri)).toBe(false)
  })
})

describe('redirectUriMatches: exact match, any port for loopback IP callbacks (RFC 8252 §7.3)', () => {
  const registered = ['http://127.0.0.1:8080/cb', 'https://app.example/cb?tenant=1']

  it('matches the registered string exactly', () => {
    expect(redirectUriMatches(registered, 'http://127.0.0.1:8080/cb')).toBe(true)
    expect(redirectUriMatches(registered, 'https://app.example/cb?tenant=1')).toBe(true)
  })

  it('lets a registered 127.0.0.1 callback come back on any port', () => {
    expect(redirectUriMatches(registered, 'http://127.0.0.1:1/cb')).toBe(true)
    expect(redirectUriMatches(registered, 'http://127.0.0.1:51234/cb')).toBe(true)
    expect(redirectUriMatches(registered, 'http://127.0.0.1:65535/cb')).toBe(true)
  })

  it('refuses invalid ports even for loopback', () => {
    expect(redirectUriMatches(registered, 'http://127.0.0.1:0/cb')).toBe(false)
    expect(redirectUriMatches(registered, 'http://127.0.0.1:65536/cb')).toBe(false)
    expect(redirectUriMatches(registered, 'http://127.0.0.1:08080/cb')).toBe(false)
    expect(redirectUriMatches(registered, 'http://127.0.0.1/cb')).toBe(false)
  })

  it('requires the path and query to match exactly', () => {
    expect(redirectUriMatches(registered, 'http://127.0.0.1:9000/cb/')).toBe(false)
    expect(redirectUriMatches(registered, 'http://127.0.0.1:9000/CB')).toBe(false)
    expect(redirectUriMatches(registered, 'http://127.0.0.1:9000/cb?x=1')).toBe(false)
    expect(redirectUriMatches(registered, 'http://127.0.0.1:9000/cb#x')).toBe(false)
    expect(redirectUriMatches(registered, 'http://127.0.0.1:9000/cb/../cb')).toBe(false)
    expect(redirectUriMatches(registered, 'https://app.example/cb')).toBe(false)
    expect(redirectUriMatches(registered, 'https://app.example/cb?tenant=2')).toBe(false)
  })

  it('does not relax the port for other hosts', () => {
    expect(redirectUriMatches(registered, 'http://127.0.0.2:8080/cb')).toBe(false)
    expect(redirectUriMatches(registered, 'http://localhost:8080/cb')).toBe(false)
    expect(redirectUriMatches(['https://app.example:8443/cb'], 'https://app.example:9443/cb')).toBe(
      false,
    )
    expect(redirectUriMatches(['http://localhost:8080/cb'], 'http://localhost:9090/cb')).toBe(false)
  })

  it('lets a registered [::1] callback, also a loopback IP literal, come back on any port', () => {
    expect(redirectUriMatches(['http://[::1]:8080/cb'], 'http://[::1]:9090/cb')).toBe(true)
    expect(redirectUriMatches(['http://[::1]:8080/cb'], 'http://127.0.0.1:9090/cb')).toBe(false)
    expect(redirectUriMatches(['http://127.0.0.1:8080/cb'], 'http://[::1]:9090/cb')).toBe(false)
  })
})

describe('port-less loopback callbacks of Client ID Metadata Documents (RFC 8252 section 7.3)', () => {
  it('accepts http://127.0.0.1/<path> written exactly, [::1] only where allowed', () => {
    const strict = { allowHostnames: false }
    expect(isAllowedPortlessLoopbackUri('http://127.0.0.1/callback', strict)).toBe(true)
    expect(isAllowedPortlessLoopbackUri('http://[::1]/callback', strict)).toBe(false)
    expect(isAllowedPortlessLoopbackUri('http://[::1]/callback', { allowHostnames: true })).toBe(
      true,
    )
    for (const uri of [
      'http://localhost/callback',
      'http://127.0.0.1',
      'http://127.0.0.1/a/../callback',
      'http://127.0.0.1/%2e%2e/callback',
      'http://127.0.0.1/callback?x=1',
      'http://127.0.0.1/callback#x',
      'http://127.1/callback',
      'https://127.0.0.1/callback',
    ]) {
      expect(isAllowedPortlessLoopbackUri(uri, strict), uri).toBe(false)
    }
  })

  it('matches that host and path on any port, and nothing else', () => {
    const registered = ['http://127.0.0.1/callback']
    expect(redirectUriMatches(registered, 'http://127.0.0.1:49152/callback')).toBe(true)
    expect(redirectUriMatches(registered, 'http://127.0.0.1/callback')).toBe(true)
    expect(redirectUriMatches(registered, 'http://127.0.0.1:49152/callback2')).toBe(false)
    expect(redirectUriMatches(registered, 'http://127.0.0.1:49152/callback?x=1')).toBe(false)
    expect(redirectUriMatches(registered, 'http://localhost:49152/callback')).toBe(false)
    expect(redirectUriMatches(registered, 'http://[::1]:49152/callback')).toBe(false)
    expect(redirectUriMatches(registered, 'http://127.0.0.1:0/callback')).toBe(false)
  })
})
