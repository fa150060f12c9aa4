import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Json } from '../../support/http.js'
import { countClients, LOOPBACK, register } from '../../support/registration.js'
import { startTestServer, type TestServer } from '../../support/server.js'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server?.close()
})

const base = { redirect_uris: [LOOPBACK] }

async function expectMetadataRefusal(body: Json, pattern?: RegExp): Promise<void> {
  const before = await countClients(server)
  const answer = await register(server, body)
  expect(answer.status).toBe(400)
  expect(answer.headers.get('cache-control')).toBe('no-store')
  expect(answer.body.error).toBe('invalid_client_metadata')
  expect(answer.body.error_description).toEqual(expect.any(String))
  if (pattern) expect(answer.body.error_description).toMatch(pattern)
  expect(await countClients(server)).toBe(before)
}

function findNulls(value: unknown, at = '$'): string[] {
  if (value === null) return [at]
  if (typeof value !== 'object') return []
  return Object.entries(value).flatMap(([k, v]) => findNulls(v, `${at}.${k}`))
}

describe('success: 201, application/json, no-store, every registered value echoed, never null', () => {
  it('answers a public client with client_id and its metadata, without a secret', async () => {
    const answer = await register(server, base)
    expect(answer.status).toBe(201)
    expect(answer.headers.get('content-type')).toMatch(/^application\/json(;|$)/)
    expect(answer.headers.get('cache-control')).toBe('no-store')
    expect(answer.body.client_id).toMatch(/^\S{16,}$/)
    expect(Number.isInteger(answer.body.client_id_issued_at)).toBe(true)
    expect(Math.abs(answer.body.client_id_issued_at - Date.now() / 1000)).toBeLessThan(60)
    expect(answer.body).toMatchObject({
      redirect_uris: [LOOPBACK],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    })
    expect(answer.body).not.toHaveProperty('client_secret')
    expect(answer.body).not.toHaveProperty('client_secret_expires_at')
    expect(findNulls(answer.body)).toEqual([])
  })

  it('gives each registration a new client_id', async () => {
    const a = await register(server, base)
    const b = await register(server, base)
    expect(a.body.client_id).not.toBe(b.body.client_id)
  })

  it('leaves out optional values that were not given, rather than sending null', async () => {
    const answer = await register(server, base)
    expect(answer.body).not.toHaveProperty('client_name')
    expect(answer.body).not.toHaveProperty('scope')
    expect(findNulls(answer.body)).toEqual([])
  })
})

describe('token_endpoint_auth_method: none (default) or client_secret_post', () => {
  it('registers a public client with none', async () => {
    const answer = await register(server, { ...base, token_endpoint_auth_method: 'none' })
    expect(answer.status).toBe(201)
    expect(answer.body.token_endpoint_auth_method).toBe('none')
    expect(answer.body).not.toHaveProperty('client_secret')
  })

  it('returns client_secret once, with client_secret_expires_at 0, for client_secret_post', async () => {
    const answer = await register(server, {
      ...base,
      token_endpoint_auth_method: 'client_secret_post',
    })
    expect(answer.status).toBe(201)
    expect(answer.body.token_endpoint_auth_method).toBe('client_secret_post')
    expect(answer.body.client_secret).toMatch(/^\S{32,}$/)
    expect(answer.body.client_secret_expires_at).toBe(0)
    expect(findNulls(answer.body)).toEqual([])
  })

  it.each([
    'client_secret_basic',
    'client_secret_jwt',
    'private_key_jwt',
    'tls_client_auth',
    'NONE',
    '',
  ])('refuses %j as invalid_client_metadata', async (method) => {
    await expectMetadataRefusal({ ...base, token_endpoint_auth_method: method }, /none/)
  })
})

describe('application_type defaults to and accepts native', () => {
  it('accepts native', async () => {
    const answer = await register(server, { ...base, application_type: 'native' })
    expect(answer.status).toBe(201)
    expect(answer.body.application_type).toBe('native')
  })

  it.each(['Native', 'service'])('refuses %s', async (type) => {
    await expectMetadataRefusal({ ...base, application_type: type }, /application_type/)
  })

  it('refuses web, saying where a web application registers (MCP 2026-07-28, SEP-837)', async () => {
    await expectMetadataRefusal(
      { ...base, application_type: 'web' },
      /native apps with loopback redirect URIs.*portico integrations create.*Client ID Metadata Document/,
    )
  })
})

describe('grant_types ⊆ {authorization_code, refresh_token}, response_types ⊆ {code}', () => {
  it.each([
    [['authorization_code'], ['authorization_code']],
    [
      ['authorization_code', 'refresh_token'],
      ['authorization_code', 'refresh_token'],
    ],
    [
      ['refresh_token', 'authorization_code'],
      ['refresh_token', 'authorization_code'],
    ],
    [['authorization_code', 'authorization_code'], ['authorization_code']],
  ])('accepts grant_types %j and echoes %j', async (grantTypes, echoed) => {
    const answer = await register(server, { ...base, grant_types: grantTypes })
    expect(answer.status).toBe(201)
    expect(answer.body.grant_types).toEqual(echoed)
  })

  it('accepts response_types ["code"]', async () => {
    const answer = await register(server, { ...base, response_types: ['code'] })
    expect(answer.status).toBe(201)
    expect(answer.body.response_types).toEqual(['code'])
  })

  it.each([
    [['refresh_token']],
    [['implicit']],
    [['client_credentials']],
    [['password']],
    [['authorization_code', 'urn:ietf:params:oauth:grant-type:jwt-bearer']],
    [['authorization_code', 'urn:ietf:params:oauth:grant-type:token-exchange']],
    [['authorization_code', 'urn:ietf:params:oauth:grant-type:device_code']],
    [['AUTHORIZATION_CODE']],
  ])('refuses grant_types %j', async (grantTypes) => {
    await expectMetadataRefusal({ ...base, grant_types: grantTypes }, /grant_types/)
  })

  it.each([[['token']], [['id_token']], [['code id_token']], [['code', 'token']], [['none']]])(
    'refuses response_types %j',
    async (responseTypes) => {
      await expectMetadataRefusal({ ...base, response_types: responseTypes }, /response_types/)
    },
  )
})

describe('an optional scope must name known scopes', () => {
  it.each([
    'openid',
    'openid profile email',
    'courses:read',
    'openid profile courses:read courses:write storage:write',
    'analytics:read orders:read comments:read forms:read',
  ])('accepts %j', async (scope) => {
    const answer = await register(server, { ...base, scope })
    expect(answer.status).toBe(201)
    expect(answer.body.scope).toBe(scope)
  })

  it('stores a repeated scope once', async () => {
    const answer = await register(server, { ...base, scope: 'openid openid courses:read' })
    expect(answer.body.scope).toBe('openid courses:read')
  })

  it.each([
    ['an unknown resource', 'widgets:read'],
    ['a scope the table does not list', 'analytics:write'],
    ['another missing one', 'storage:read'],
    ['an agent-auth scope', 'openid agent_auth'],
    ['upper case', 'OPENID'],
    ['an empty string', ''],
    ['a doubled space', 'openid  profile'],
    ['a leading space', ' openid'],
    ['a tab separator', 'openid\tprofile'],
    ['a quote', 'open"id'],
  ])('refuses %s', async (_label, scope) => {
    await expectMetadataRefusal({ ...base, scope }, /scope/)
  })
})

describe('client_name is bounded and free of control characters', () => {
  it.each([
    ['a plain name', 'My CLI', 'My CLI'],
    ['one character', 'x', 'x'],
    ['100 characters', 'n'.repeat(100), 'n'.repeat(100)],
    ['100 non-ASCII characters', 'é'.repeat(100), 'é'.repeat(100)],
    ['100 astral characters', '🎓'.repeat(100), '🎓'.repeat(100)],
    ['surrounding spaces, trimmed', '  Trimmed  ', 'Trimmed'],
    ['right-to-left script', 'مدرسة', 'مدرسة'],
  ])('accepts %s', async (_label, name, echoed) => {
    const answer = await register(server, { ...base, client_name: name })
    expect(answer.status).toBe(201)
    expect(answer.body.client_name).toBe(echoed)
  })

  it.each([
    ['101 characters', 'n'.repeat(101)],
    ['101 astral characters', '🎓'.repeat(101)],
    ['an empty name', ''],
    ['a blank name', '   '],
    ['a NUL', 'My\u0000App'],
    ['a newline', 'My\nApp'],
    ['a carriage return', 'My\rApp'],
    ['a tab', 'My\tApp'],
    ['an escape character', 'My\u001b[31mApp'],
    ['a DEL', 'My\u007fApp'],
    ['a C1 control', 'My\u0085App'],
    ['a right-to-left override', 'My\u202eppA'],
    ['a left-to-right override', 'My\u202dApp'],
    ['a right-to-left isolate', 'My\u2067App'],
    ['a right-to-left mark', 'My\u200fApp'],
  ])('refuses %s', async (_label, name) => {
    await expectMetadataRefusal({ ...base, client_name: name }, /client_name/)
  })
})

describe('unknown metadata fields are ignored and never echoed as if honoured', () => {
  it('ignores fields Portico does not support', async () => {
    const answer = await register(server, {
      ...base,
      client_name: 'Known',
      logo_uri: 'https://evil.example/logo.png',
      client_uri: 'https://evil.example',
      policy_uri: 'https://evil.example/policy',
      tos_uri: 'https://evil.example/tos',
      jwks_uri: 'https://evil.example/jwks',
      jwks: { keys: [] },
      contacts: ['admin@evil.example'],
      software_id: 'x',
      software_version: '1',
      software_statement: 'eyJhbGciOiJub25lIn0.e30.',
      client_secret: 'chosen-by-the-client',
      client_id: 'chosen-client-id',
      client_secret_expires_at: 123,
      agent_auth: { enabled: true },
      extra: null,
    })
    expect(answer.status).toBe(201)
    expect(Object.keys(answer.body).sort()).toEqual(
      [
        'application_type',
        'client_id',
        'client_id_issued_at',
        'client_name',
        'grant_types',
        'id_token_signed_response_alg',
        'redirect_uris',
        'response_types',
        'token_endpoint_auth_method',
      ].sort(),
    )
    expect(answer.body.client_id).not.toBe('chosen-client-id')
    const row = await server.deps.database.db
      .selectFrom('clients')
      .selectAll()
      .where('client_id', '=', answer.body.client_id)
      .executeTakeFirstOrThrow()
    expect(JSON.stringify(row)).not.toContain('evil.example')
    expect(row.secret_digest).toBeNull()
  })
})
