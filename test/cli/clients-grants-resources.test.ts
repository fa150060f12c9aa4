import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createIntegration } from '../../src/oauth/registration/register-client.js'
import { type CliResult, runCli } from '../support/cli.js'
import { createPerson, registerTestClient, type TestClient } from '../support/flow.js'
import { postToken, refreshFields } from '../support/grants.js'
import { type Json, readJson } from '../support/http.js'
import { startTestServer, type TestServer } from '../support/server.js'
import {
  ACCOUNT,
  callApi,
  databaseUrlOf,
  introspect,
  issue,
  issueThroughConsent,
  postIntrospect,
} from '../support/token-lifecycle.js'

const SECRET = 'test-secret-test-secret-test-secret-0123'

/** A running server and the CLI working on the same database, as an operator would. */
let server: TestServer
let env: Record<string, string>
beforeAll(async () => {
  server = await startTestServer()
  env = {
    DATABASE_URL: databaseUrlOf(server),
    PORTICO_KEY_ENCRYPTION_SECRET: SECRET,
    PORTICO_ISSUER: server.issuer,
  }
})
afterAll(async () => {
  await server?.close()
})

const cli = (...args: string[]) => runCli(args, env)

function expectSuccess(result: CliResult): string {
  expect(result.stderr).toBe('')
  expect(result.code, result.stderr).toBe(0)
  return result.stdout
}

/** An error is one line on stderr starting with "portico: ", nothing on stdout. */
function expectRefusal(result: CliResult, code: number, reason: RegExp): void {
  expect(result.code, `${result.stdout}${result.stderr}`).toBe(code)
  expect(result.stdout).toBe('')
  expect(result.stderr.trim().split('\n')).toHaveLength(1)
  expect(result.stderr).toMatch(/^portico: /)
  expect(result.stderr).toMatch(reason)
}

async function integration(name: string): Promise<TestClient> {
  const redirectUri = 'https://tool.example.com/callback'
  const { client } = await createIntegration(server.deps, {
    name,
    redirectUris: [redirectUri],
    confidential: false,
  })
  return { clientId: client.clientId, redirectUri }
}

const apiStatus = async (token: string) => (await callApi(server, ACCOUNT, { token })).status

describe('portico clients list', () => {
  it('lists self-registered tools and integrations, one line each', async () => {
    const tool = await registerTestClient(server, { client_name: 'Listed Tool' })
    const school = await integration('Listed Integration')
    const out = expectSuccess(await cli('clients', 'list'))
    const toolLine = out.split('\n').find((l) => l.startsWith(tool.clientId))
    expect(toolLine).toMatch(/self_registered/)
    expect(toolLine).toMatch(/Listed Tool/)
    const schoolLine = out.split('\n').find((l) => l.startsWith(school.clientId))
    expect(schoolLine).toMatch(/integration/)
    expect(schoolLine).toMatch(/Listed Integration/)
  })

  it('prints JSON with --json: ISO 8601 times, and null for a client never used', async () => {
    const used = await issueThroughConsent(server, { metadata: { client_name: 'JSON Tool' } })
    const unused = await registerTestClient(server, { client_name: 'Unused Tool' })
    const rows = JSON.parse(expectSuccess(await cli('clients', 'list', '--json'))) as Json[]
    const row = rows.find((r) => r.client_id === used.client.clientId)
    expect(Object.keys(row ?? {}).sort()).toEqual(
      ['client_id', 'created_at', 'kind', 'last_used_at', 'name'].sort(),
    )
    expect(row).toMatchObject({ name: 'JSON Tool', kind: 'self_registered' })
    const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
    expect(row?.created_at).toMatch(iso)
    expect(row?.last_used_at).toMatch(iso)
    const never = rows.find((r) => r.client_id === unused.clientId)
    expect(never).toMatchObject({ name: 'Unused Tool', last_used_at: null })
    expect(never?.created_at).toMatch(iso)
  })

  it('never prints a client secret', async () => {
    const confidential = await registerTestClient(server, {
      client_name: 'Secret Keeper',
      token_endpoint_auth_method: 'client_secret_post',
    })
    expect(confidential.clientSecret).toBeTruthy()
    const out = expectSuccess(await cli('clients', 'list', '--json'))
    expect(out).toContain(confidential.clientId)
    expect(out).not.toContain(confidential.clientSecret)
  })
})

describe('portico clients show', () => {
  it('shows the client and who authorized it, with the scopes', async () => {
    const tool = await registerTestClient(server, { client_name: 'Shown Tool' })
    const first = await issue(server, { client: tool, scope: 'openid account:read' })
    const second = await issue(server, { client: tool, role: 'student', scope: 'account:read' })
    const out = expectSuccess(await cli('clients', 'show', tool.clientId))
    expect(out).toContain(`client_id: ${tool.clientId}`)
    expect(out).toContain('name: Shown Tool')
    expect(out).toContain('kind: self_registered')
    expect(out).toContain('token_endpoint_auth_method: none')
    expect(out).toContain(`redirect_uris: ${tool.redirectUri}`)
    const authorizedBy = out.split('\n').find((l) => l.startsWith('authorized by: ')) ?? ''
    expect(authorizedBy).toContain(`${first.person.email} (openid account:read)`)
    expect(authorizedBy).toContain(`${second.person.email} (account:read)`)
  })

  it('says nobody for a client no one authorized', async () => {
    const tool = await registerTestClient(server, { client_name: 'Lonely Tool' })
    expect(expectSuccess(await cli('clients', 'show', tool.clientId))).toContain(
      'authorized by: nobody',
    )
  })

  it('refuses an unknown client id (exit 1) and a missing one (usage, exit 2)', async () => {
    expectRefusal(await cli('clients', 'show', 'cli_nope'), 1, /no client cli_nope/)
    expectRefusal(await cli('clients', 'show'), 2, /CLIENT_ID/)
  })
})

describe('portico clients delete', () => {
  it('deletes the client: its tokens stop working on the running server at once', async () => {
    const tool = await registerTestClient(server, { client_name: 'Doomed Tool' })
    const a = await issueThroughConsent(server, { client: tool, scope: 'account:read' })
    const b = await issue(server, { client: tool, role: 'student', scope: 'account:read' })
    const other = await issue(server)
    for (const issued of [a, b, other]) expect(await apiStatus(issued.accessToken)).toBe(200)

    const out = expectSuccess(await cli('clients', 'delete', tool.clientId))
    expect(out).toContain(tool.clientId)

    expect(await apiStatus(a.accessToken)).toBe(401)
    expect(await apiStatus(b.accessToken)).toBe(401)
    expect(await apiStatus(other.accessToken)).toBe(200)
    const refreshed = await postToken(server, refreshFields(tool, a.refreshToken))
    expect(refreshed.status).toBe(401)
    expect((await readJson(refreshed)).error).toBe('invalid_client')
    expect((await postIntrospect(server, tool, a.accessToken)).status).toBe(401)
    expectRefusal(await cli('clients', 'show', tool.clientId), 1, /no client/)
  })

  it('deletes an integration the same way', async () => {
    const school = await integration('Doomed Integration')
    const issued = await issue(server, { client: school, scope: 'account:read' })
    expectSuccess(await cli('clients', 'delete', school.clientId))
    expect(await apiStatus(issued.accessToken)).toBe(401)
  })

  it('refuses an unknown client id (exit 1) and a missing one (usage, exit 2)', async () => {
    expectRefusal(await cli('clients', 'delete', 'cli_nope'), 1, /no client cli_nope/)
    expectRefusal(await cli('clients', 'delete'), 2, /CLIENT_ID/)
  })
})

describe('portico grants revoke', () => {
  it('--client ends every grant of the client, for everyone; the client itself stays', async () => {
    const tool = await registerTestClient(server, { client_name: 'Revoked For All' })
    const a = await issue(server, { client: tool, scope: 'account:read' })
    const b = await issue(server, { client: tool, role: 'student', scope: 'account:read' })
    const other = await issue(server)
    const out = expectSuccess(await cli('grants', 'revoke', '--client', tool.clientId))
    expect(out.trim()).toBe('revoked 2 grants')
    expect(await apiStatus(a.accessToken)).toBe(401)
    expect(await apiStatus(b.accessToken)).toBe(401)
    const refreshed = await postToken(server, refreshFields(tool, b.refreshToken))
    expect((await readJson(refreshed)).error).toBe('invalid_grant')
    expect(await apiStatus(other.accessToken)).toBe(200)
    // The client can be authorized again.
    const again = await issue(server, { client: tool, scope: 'account:read' })
    expect(await apiStatus(again.accessToken)).toBe(200)
    // Revoking again ends only the grant made since.
    const twice = await cli('grants', 'revoke', '--client', tool.clientId)
    expect(expectSuccess(twice).trim()).toBe('revoked 1 grant')
  })

  it('--user ends every grant of the person, whatever the client; others keep theirs', async () => {
    const person = await createPerson(server, 'lecturer')
    const viaTool = await issue(server, { person, scope: 'account:read' })
    const viaSchool = await issue(server, {
      person,
      client: await integration('Per-user Integration'),
      scope: 'account:read',
    })
    const someoneElse = await issue(server, { client: viaTool.client, scope: 'account:read' })
    const out = expectSuccess(await cli('grants', 'revoke', '--user', person.email.toUpperCase()))
    expect(out.trim()).toBe('revoked 2 grants')
    expect(await apiStatus(viaTool.accessToken)).toBe(401)
    expect(await apiStatus(viaSchool.accessToken)).toBe(401)
    expect(await apiStatus(someoneElse.accessToken)).toBe(200)
  })

  it('--client with --user ends only that person’s grant of that client', async () => {
    const person = await createPerson(server, 'student')
    const tool = await registerTestClient(server)
    const target = await issue(server, { person, client: tool, scope: 'account:read' })
    const sameClient = await issue(server, { client: tool, scope: 'account:read' })
    const samePerson = await issue(server, { person, scope: 'account:read' })
    const out = expectSuccess(
      await cli('grants', 'revoke', '--client', tool.clientId, '--user', person.email),
    )
    expect(out.trim()).toBe('revoked 1 grant')
    expect(await apiStatus(target.accessToken)).toBe(401)
    expect(await apiStatus(sameClient.accessToken)).toBe(200)
    expect(await apiStatus(samePerson.accessToken)).toBe(200)
  })

  it('refuses an unknown e-mail (exit 1) and no filter at all (usage, exit 2)', async () => {
    expectRefusal(
      await cli('grants', 'revoke', '--user', 'nobody@example.org'),
      1,
      /no account with e-mail nobody@example\.org/,
    )
    expectRefusal(await cli('grants', 'revoke'), 2, /--client|--user/)
  })
})

describe('portico resources add | list | delete', () => {
  it('add prints the credentials once; they introspect tokens issued for that resource', async () => {
    const result = await cli(
      'resources',
      'add',
      '--identifier',
      'https://grades.school.example/api/',
      '--name',
      'Grades API',
    )
    const out = expectSuccess(result)
    const identifier = /^identifier: (\S+)$/m.exec(out)?.[1]
    const clientId = /^client_id: (rs_\S+)$/m.exec(out)?.[1] ?? ''
    const clientSecret = /^client_secret: (\S+)$/m.exec(out)?.[1] ?? ''
    expect(identifier).toBe('https://grades.school.example/api')
    expect(clientId).toMatch(/^rs_/)
    expect(clientSecret.length).toBeGreaterThanOrEqual(32)
    expect(out).toMatch(/shown once/)

    // The secret is not stored, only its digest.
    const rows = await server.deps.database.db.selectFrom('resource_servers').selectAll().execute()
    expect(JSON.stringify(rows)).not.toContain(clientSecret)

    // It is a valid resource at authorize and token, and its credentials introspect.
    const issued = await issueThroughConsent(server, {
      resource: 'https://grades.school.example/api',
      scope: 'courses:read',
    })
    const body = await introspect(server, { clientId, clientSecret }, issued.accessToken)
    expect(body).toMatchObject({ active: true, aud: 'https://grades.school.example/api' })
    // Portico's own API refuses that token.
    expect(await apiStatus(issued.accessToken)).toBe(401)
    // And its credentials see nothing of Portico's own tokens.
    const own = await issue(server)
    const inactive = await postIntrospect(server, { clientId, clientSecret }, own.accessToken)
    expect(await inactive.text()).toBe('{"active":false}')

    // list shows it, without any secret.
    const listed = expectSuccess(await cli('resources', 'list'))
    expect(listed).toContain(`${clientId}  https://grades.school.example/api  Grades API`)
    expect(listed).not.toContain(clientSecret)
  })

  const refused: Array<[string, string, RegExp]> = [
    ['not a URL', 'grades api', /absolute URL/],
    ['plain http off loopback', 'http://grades.example', /https/],
    ['a fragment', 'https://grades.example/api#v1', /fragment/],
    ['user-info', 'https://user:pw@grades.example', /user-info/],
    ['the issuer itself', 'ISSUER', /own API/],
  ]
  for (const [name, identifier, reason] of refused) {
    it(`add refuses an identifier with ${name} (exit 1), adding nothing`, async () => {
      const before = (await server.deps.resourceServers.list()).length
      const value = identifier === 'ISSUER' ? server.issuer : identifier
      expectRefusal(
        await cli('resources', 'add', '--identifier', value, '--name', 'Bad'),
        1,
        new RegExp(`invalid_request: .*${reason.source}`),
      )
      expect((await server.deps.resourceServers.list()).length).toBe(before)
    })
  }

  it('add refuses an identifier registered already, and a blank name', async () => {
    const identifier = 'https://twice.school.example'
    expectSuccess(await cli('resources', 'add', '--identifier', identifier, '--name', 'Once'))
    expectRefusal(
      await cli('resources', 'add', '--identifier', `${identifier}/`, '--name', 'Twice'),
      1,
      /exists already/,
    )
    expectRefusal(
      await cli('resources', 'add', '--identifier', 'https://blank.school.example', '--name', ' '),
      1,
      /name/,
    )
  })

  it('add needs --identifier and --name (usage, exit 2)', async () => {
    expectRefusal(await cli('resources', 'add', '--name', 'No Identifier'), 2, /--identifier/)
    expectRefusal(
      await cli('resources', 'add', '--identifier', 'https://x.school.example'),
      2,
      /--name/,
    )
  })

  it('delete removes it: no more introspection, no more tokens for it', async () => {
    const out = expectSuccess(
      await cli(
        'resources',
        'add',
        '--identifier',
        'https://gone.school.example',
        '--name',
        'Gone',
      ),
    )
    const clientId = /^client_id: (rs_\S+)$/m.exec(out)?.[1] ?? ''
    const clientSecret = /^client_secret: (\S+)$/m.exec(out)?.[1] ?? ''
    const issued = await issue(server, {
      resource: 'https://gone.school.example',
      scope: 'courses:read',
    })
    expect((await introspect(server, { clientId, clientSecret }, issued.accessToken)).active).toBe(
      true,
    )

    expect(expectSuccess(await cli('resources', 'delete', clientId)).trim()).toBe(
      `deleted ${clientId}`,
    )
    expect(expectSuccess(await cli('resources', 'list'))).not.toContain(clientId)
    const response = await postIntrospect(server, { clientId, clientSecret }, issued.accessToken)
    expect(response.status).toBe(401)
    expect((await readJson(response)).error).toBe('invalid_client')
    const refusedFlow = await issueThroughConsent(server, {
      resource: 'https://gone.school.example',
    }).catch((error: Error) => error)
    expect(String(refusedFlow)).toMatch(/invalid_target/)

    expectRefusal(await cli('resources', 'delete', clientId), 1, /no resource server/)
    expectRefusal(await cli('resources', 'delete'), 2, /rs_/)
  })
})
