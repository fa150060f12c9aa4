import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hashPassword } from '../../src/platform/passwords.js'
import { signIn } from '../http/authorize/support.js'
import { Browser, createPerson, registerTestClient, type TestPerson } from '../support/flow.js'
import { codeFields, mintCode, postToken, refreshFields } from '../support/grants.js'
import { readJson } from '../support/http.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { ACCOUNT, callApi, issue } from '../support/token-lifecycle.js'

/**
 * Issue 16, "Only active people act": sign-in, code redemption, refresh and every bearer
 * call check that the person is active at that moment. An invitation never accepted opens
 * nothing, whatever password the account holds; a suspended person set back to `invited`
 * stays out until an owner or admin sets them `active`; a code approved a moment before a
 * suspension yields no tokens and no ID token.
 */

let server: TestServer
let manager: (path: string, json?: unknown) => Promise<Response>
let editorCall: (path: string, json?: unknown) => Promise<Response>

beforeAll(async () => {
  server = await startTestServer()
  const owner = await issue(server, { scope: 'members:read members:write' })
  const editor = await issue(server, { role: 'editor', scope: 'members:read' })
  const caller = (token: string) => (path: string, json?: unknown) =>
    callApi(server, path, {
      token,
      init:
        json === undefined
          ? {}
          : {
              method: 'PATCH',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify(json),
            },
    })
  manager = caller(owner.accessToken)
  editorCall = caller(editor.accessToken)
})
afterAll(async () => {
  await server?.close()
})

const setStatus = async (userId: string, status: string) => {
  const response = await manager(`/api/v1/members/${userId}`, { status })
  expect(response.status, await response.clone().text()).toBe(200)
}

/** A sign-in attempt's status: 303 signed in, 401 refused. */
async function signInStatus(person: Pick<TestPerson, 'email' | 'password'>): Promise<number> {
  return (await signIn(new Browser(server), person)).status
}

describe('only active people act', () => {
  it('an invited person who never accepted cannot sign in, with any password', async () => {
    const invited = await server.fetch('/api/v1/members', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${(await issue(server, { scope: 'members:write' })).accessToken}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ email: 'never-accepted@example.com', role: 'lecturer' }),
    })
    expect(invited.status).toBe(201)
    const member = await readJson(invited)
    expect(member.status).toBe('invited')
    // Even with a password the attacker knows (an operator set one, a leaked hash …).
    const password = 'the attacker knows this one'
    await server.deps.users.setPasswordHash(
      'never-accepted@example.com',
      await hashPassword(password),
      server.deps.clock.now(),
    )
    expect(await signInStatus({ email: 'never-accepted@example.com', password })).toBe(401)
    // An owner's explicit activation is what opens the account.
    await setStatus(member.id as string, 'active')
    expect(await signInStatus({ email: 'never-accepted@example.com', password })).toBe(303)
  })

  it('a suspended person set back to invited stays out until an owner or admin reactivates them', async () => {
    const person = await createPerson(server, 'lecturer')
    const tokens = await issue(server, { person, scope: 'account:read' })
    const browser = new Browser(server)
    expect((await signIn(browser, person)).status).toBe(303)

    await setStatus(person.user.id, 'suspended')
    expect(await signInStatus(person)).toBe(401)
    expect((await callApi(server, ACCOUNT, { token: tokens.accessToken })).status).toBe(401)

    await setStatus(person.user.id, 'invited')
    expect(await signInStatus(person)).toBe(401)
    expect((await browser.request('/account')).status).toBe(303)
    expect((await callApi(server, ACCOUNT, { token: tokens.accessToken })).status).toBe(401)
    const refreshed = await postToken(server, refreshFields(tokens.client, tokens.refreshToken))
    expect(refreshed.status).toBe(400)
    expect((await readJson(refreshed)).error).toBe('invalid_grant')

    // An editor cannot reactivate anyone; an owner can.
    const refused = await editorCall(`/api/v1/members/${person.user.id}`, { status: 'active' })
    expect(refused.status).toBe(403)
    expect(await signInStatus(person)).toBe(401)
    await setStatus(person.user.id, 'active')
    expect(await signInStatus(person)).toBe(303)
  })

  for (const status of ['suspended', 'invited'] as const) {
    it(`a code approved just before the person is ${status} yields no tokens and no ID token`, async () => {
      const person = await createPerson(server, 'editor')
      const client = await registerTestClient(server)
      const approved = await mintCode(server, client, person.user, { scope: 'openid profile' })
      await setStatus(person.user.id, status)
      const response = await postToken(server, codeFields(approved))
      expect(response.status).toBe(400)
      const body = await readJson(response)
      expect(body).toMatchObject({ error: 'invalid_grant' })
      expect(body.access_token).toBeUndefined()
      expect(body.id_token).toBeUndefined()
      // Reactivated, the person's old code stays spent: approval starts again.
      await setStatus(person.user.id, 'active')
      expect((await postToken(server, codeFields(approved))).status).toBe(400)
    })
  }

  it('a refresh token is refused while its person is suspended', async () => {
    const person = await createPerson(server, 'editor')
    const tokens = await issue(server, { person, scope: 'account:read' })
    await setStatus(person.user.id, 'suspended')
    const refused = await postToken(server, refreshFields(tokens.client, tokens.refreshToken))
    expect(refused.status).toBe(400)
    expect((await readJson(refused)).error).toBe('invalid_grant')
  })
})
