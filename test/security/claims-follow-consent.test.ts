import { decodeJwt } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { consentForm, decide, locationOf, signedInBrowser } from '../http/authorize/support.js'
import {
  authorizePath,
  createPerson,
  createPkce,
  registerTestClient,
  type TestPerson,
} from '../support/flow.js'
import { getUserinfo, postToken } from '../support/grants.js'
import { readJson } from '../support/http.js'
import { startTestServer, type TestServer } from '../support/server.js'

/**
 * Issue 16, "Claims follow the consent exactly": userinfo and the ID token release only what
 * the granted scopes name, and the consent page's words for each scope say what is released.
 * The test reads both: the identity lines of the real consent page, and the claims that
 * come back, and checks each against the other. Before the fix, `openid profile` released
 * the e-mail address as `preferred_username` under the words "Your name and profile picture".
 */

/** What a person reading the consent page must have been told for each personal claim. */
const CLAIM_WORDS: Record<string, RegExp> = {
  sub: /account identifier/i,
  name: /\bname\b/i,
  picture: /profile picture/i,
  updated_at: /when you last changed your profile/i,
  email: /e-mail address/i,
  email_verified: /e-mail address/i,
}

/** ID token claims about the token itself, not the person (OIDC Core §2). */
const PROTOCOL_CLAIMS = new Set(['iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'at_hash'])

let server: TestServer
let person: TestPerson
beforeAll(async () => {
  server = await startTestServer()
  person = await createPerson(server, 'student')
  await server.deps.users.updateProfile(
    person.user.id,
    { avatarUrl: 'https://cdn.example.com/avatars/1.png' },
    server.deps.clock.now(),
  )
})
afterAll(async () => {
  await server?.close()
})

const decode = (text: string) =>
  text
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&')

/** The consent page's identity lines ("Who you are"), by scope. */
function identityLines(page: string): Map<string, string> {
  const start = page.indexOf('<ul class="scopes identity">')
  if (start < 0) return new Map()
  const list = page.slice(start, page.indexOf('</ul>', start))
  return new Map(
    [...list.matchAll(/<li><span>([^<]*)<\/span> <code>([^<]*)<\/code><\/li>/g)].map(
      ([, label = '', scope = '']) => [decode(scope), decode(label)],
    ),
  )
}

/** Runs the flow for `scope`: the consent page's identity lines, userinfo and the ID token. */
async function consentAndClaims(scope: string) {
  const client = await registerTestClient(server)
  const browser = await signedInBrowser(server, person)
  const pkce = createPkce()
  const form = await consentForm(await browser.request(authorizePath(client, pkce, { scope })))
  const lines = identityLines(form.page)
  const code = new URL(locationOf(await decide(browser, form))).searchParams.get('code') ?? ''
  const tokens = await readJson(
    await postToken(server, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: client.redirectUri,
      client_id: client.clientId,
      code_verifier: pkce.verifier,
    }),
  )
  const userinfo = await readJson(await getUserinfo(server, tokens.access_token as string))
  const idToken = decodeJwt(tokens.id_token as string) as Record<string, unknown>
  return { lines, userinfo, idToken }
}

const SCOPE_SETS = ['openid', 'openid profile', 'openid email', 'openid profile email']

describe('claims follow the consent exactly', () => {
  for (const scope of SCOPE_SETS) {
    it(`with "${scope}", every released claim was named on the consent page, and nothing else is released`, async () => {
      const { lines, userinfo, idToken } = await consentAndClaims(scope)
      expect([...lines.keys()].sort()).toEqual(scope.split(' ').sort())
      const words = [...lines.values()]
      const personal = [
        ...Object.keys(userinfo),
        ...Object.keys(idToken).filter((claim) => !PROTOCOL_CLAIMS.has(claim)),
      ]
      for (const claim of personal) {
        const told = CLAIM_WORDS[claim]
        expect(told, `claim ${claim} has no words on the consent page`).toBeDefined()
        expect(
          words.some((line) => told?.test(line)),
          `"${claim}" released, but the consent page said only: ${words.join(' / ')}`,
        ).toBe(true)
      }
      // And the other way: what the page names (for a person with a picture) is released.
      for (const [claim, told] of Object.entries(CLAIM_WORDS))
        if (words.some((line) => told.test(line)))
          expect(Object.keys(userinfo), `the page names ${claim}`).toContain(claim)
    })
  }

  it('with "openid profile" no claim carries the e-mail address (preferred_username used to)', async () => {
    const { lines, userinfo, idToken } = await consentAndClaims('openid profile')
    expect([...lines.values()].some((line) => /e-mail/i.test(line))).toBe(false)
    const released = JSON.stringify({ ...userinfo, ...idToken }).toLowerCase()
    expect(released).not.toContain(person.email.toLowerCase())
    expect(released).not.toContain(person.email.split('@')[0]?.toLowerCase())
    expect(userinfo.preferred_username).toBeUndefined()
  })

  it('the e-mail address is released with "email", exactly where the page says so', async () => {
    const { lines, userinfo } = await consentAndClaims('openid email')
    expect(lines.get('email')).toMatch(/e-mail address/i)
    expect(userinfo.email).toBe(person.email)
  })

  it('discovery does not promise a claim that is never released', async () => {
    const metadata = await readJson(await server.fetch('/.well-known/openid-configuration'))
    expect(metadata.claims_supported).not.toContain('preferred_username')
    for (const claim of Object.keys(CLAIM_WORDS)) expect(metadata.claims_supported).toContain(claim)
  })
})
