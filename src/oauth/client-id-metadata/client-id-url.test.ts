import { describe, expect, it } from 'vitest'
import { clientIdUrlProblem, looksLikeClientIdUrl } from './client-id-url.js'

describe('Client ID Metadata Document URLs, judged as sent (draft section 3)', () => {
  it('accepts https URLs with a path, a port or a query', () => {
    for (const url of [
      'https://vscode.dev/oauth/client-metadata.json',
      'https://agent.example:8443/client.json',
      'https://agent.example/client.json?v=2',
      'https://[2001:db8::1]/client.json',
    ]) {
      expect(clientIdUrlProblem(url), url).toBeUndefined()
    }
  })

  it.each([
    ['http://agent.example/client.json', /https/],
    ['https://agent.example', /path/],
    ['https://agent.example/', /path/],
    ['https://agent.example?x', /path/],
    ['https://agent.example/client.json#top', /fragment/],
    ['https://user:pw@agent.example/client.json', /user-info/],
    ['https://user@agent.example/client.json', /user-info/],
    ['https://agent.example/a/../client.json', /dot segments/],
    ['https://agent.example/a/./client.json', /dot segments/],
    ['https://agent.example/a/%2e%2E/client.json', /dot segments/],
    ['https://agent.example/a/.%2e/client.json', /dot segments/],
    ['https://agent.example/..', /dot segments/],
    ['https://Agent.example/client.json', /canonical/],
    ['https://agent.example:443/client.json', /canonical/],
    ['https://agent.example/client json', /printable/],
    ['https://agent.example/clïent.json', /printable/],
    ['https://agent.example\\client.json', /backslash/],
    [`https://agent.example/${'a'.repeat(2000)}`, /longer/],
  ])('refuses %s', (url, reason) => {
    expect(clientIdUrlProblem(url)).toMatch(reason)
  })

  it('recognises the https kind whatever the case, and never a pci_ id', () => {
    expect(looksLikeClientIdUrl('HTTPS://agent.example/x')).toBe(true)
    expect(looksLikeClientIdUrl('pci_abc')).toBe(false)
    expect(looksLikeClientIdUrl('http://agent.example/x')).toBe(false)
  })
})
