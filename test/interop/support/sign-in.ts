import { Browser, formField, type TestPerson } from '../../support/flow.js'
import type { TestServer } from '../../support/server.js'

/**
 * Plays the person at the real sign-in and consent pages for an authorization URL that a
 * client library built, over HTTP with a cookie jar, and returns where the browser was
 * finally sent: the client's redirect URI with the authorization response.
 */
export async function signInAndDecide(
  server: TestServer,
  person: TestPerson,
  authorizationUrl: URL | string,
  decision: 'approve' | 'deny' = 'approve',
): Promise<URL> {
  const url = new URL(authorizationUrl)
  if (url.origin !== server.issuer) throw new Error(`not this server's URL: ${url.href}`)
  const browser = new Browser(server)
  let response = await browser.request(`${url.pathname}${url.search}`)
  const location = () => response.headers.get('location') ?? ''
  if (response.status === 303 && location().startsWith('/login')) {
    const page = await (await browser.request(location())).text()
    const request = formField(page, 'request')
    if (!request) throw new Error('the sign-in page does not continue an authorization request')
    response = await browser.post('/login', {
      csrf: formField(page, 'csrf') ?? '',
      request,
      email: person.email,
      password: person.password,
    })
    if (response.status !== 303) throw new Error(`sign-in failed: ${response.status}`)
    response = await browser.request(location())
  }
  if (response.status !== 200) {
    throw new Error(`expected the consent page, got ${response.status} ${await response.text()}`)
  }
  const consent = await response.text()
  if (!consent.includes('wants access to your account')) throw new Error('not the consent page')
  response = await browser.post('/oauth/authorize/decision', {
    request: formField(consent, 'request') ?? '',
    csrf: formField(consent, 'csrf') ?? '',
    decision,
  })
  if (response.status !== 303) throw new Error(`decision failed: ${response.status}`)
  return new URL(location())
}
