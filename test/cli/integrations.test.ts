import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/config.js'
import { openDatabase } from '../../src/storage/database.js'
import { runCli } from '../support/cli.js'
import { createTestDatabase, type TestDatabase } from '../support/databases.js'

const SECRET = 'cli-test-secret-cli-test-secret-0123456'

let database: TestDatabase
let env: Record<string, string>
beforeAll(async () => {
  database = await createTestDatabase()
  env = { DATABASE_URL: database.url, PORTICO_KEY_ENCRYPTION_SECRET: SECRET }
})
afterAll(async () => {
  await database?.drop()
})

async function clientRow(clientId: string) {
  const opened = openDatabase(parseConfig({ DATABASE_URL: database.url }).database)
  try {
    return await opened.db
      .selectFrom('clients')
      .selectAll()
      .where('client_id', '=', clientId)
      .executeTakeFirst()
  } finally {
    await opened.close()
  }
}

describe('portico integrations', () => {
  let confidentialId: string
  let publicId: string

  it('create --confidential prints the client_id and the secret once, stored hashed', async () => {
    const result = await runCli(
      [
        'integrations',
        'create',
        '--name',
        'X',
        '--redirect-uri',
        'https://app.example/cb',
        '--confidential',
      ],
      env,
    )
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const clientId = /^client_id: (\S+)$/m.exec(result.stdout)?.[1]
    const secret = /^client_secret: (\S+)$/m.exec(result.stdout)?.[1]
    expect(clientId).toBeTruthy()
    expect(secret?.length).toBeGreaterThanOrEqual(32)
    confidentialId = clientId as string

    const row = await clientRow(confidentialId)
    expect(row).toMatchObject({
      kind: 'integration',
      client_name: 'X',
      token_endpoint_auth_method: 'client_secret_post',
    })
    expect(JSON.parse(row?.redirect_uris ?? '[]')).toEqual(['https://app.example/cb'])
    expect(row?.secret_digest).toBe(
      createHash('sha256')
        .update(secret as string)
        .digest('base64url'),
    )
    expect(JSON.stringify(row)).not.toContain(secret)
  })

  it('create without --confidential makes a public client with several callbacks, no secret', async () => {
    const result = await runCli(
      [
        'integrations',
        'create',
        '--name',
        'Public one',
        '--redirect-uri',
        'https://app.example/a',
        '--redirect-uri',
        'http://127.0.0.1:9000/cb',
      ],
      env,
    )
    expect(result.code).toBe(0)
    expect(result.stdout).not.toMatch(/client_secret/)
    publicId = /^client_id: (\S+)$/m.exec(result.stdout)?.[1] as string
    const row = await clientRow(publicId)
    expect(row?.token_endpoint_auth_method).toBe('none')
    expect(row?.secret_digest).toBeNull()
    expect(JSON.parse(row?.redirect_uris ?? '[]')).toEqual([
      'https://app.example/a',
      'http://127.0.0.1:9000/cb',
    ])
  })

  it('list shows them, in text and as JSON', async () => {
    const text = await runCli(['integrations', 'list'], env)
    expect(text.code).toBe(0)
    expect(text.stdout).toContain(confidentialId)
    expect(text.stdout).toContain('https://app.example/cb')
    expect(text.stdout).toContain(publicId)

    const json = await runCli(['integrations', 'list', '--json'], env)
    expect(json.code).toBe(0)
    const rows = JSON.parse(json.stdout) as Array<Record<string, unknown>>
    expect(rows.map((r) => r.client_id).sort()).toEqual([confidentialId, publicId].sort())
    expect(json.stdout).not.toMatch(/secret_digest|client_secret"/)
  })

  it('delete removes one; deleting it again fails', async () => {
    const deleted = await runCli(['integrations', 'delete', confidentialId], env)
    expect(deleted.code).toBe(0)
    expect(await clientRow(confidentialId)).toBeUndefined()
    const list = await runCli(['integrations', 'list'], env)
    expect(list.stdout).not.toContain(confidentialId)
    expect(list.stdout).toContain(publicId)

    const again = await runCli(['integrations', 'delete', confidentialId], env)
    expect(again.code).not.toBe(0)
    expect(again.stderr).toContain(confidentialId)
  })

  it.concurrent.for([
    ['plain http', 'http://app.example/cb'],
    ['a fragment', 'https://app.example/cb#x'],
    ['user-info', 'https://user:pw@app.example/cb'],
    ['a wildcard host', 'https://*.app.example/cb'],
    ['a custom scheme', 'com.example.app:/cb'],
    ['javascript:', 'javascript:alert(1)'],
  ])(
    'create refuses a redirect URI with %s, non-zero exit, nothing stored',
    async ([, uri = ''], { expect }) => {
      const result = await runCli(
        ['integrations', 'create', '--name', 'Bad', '--redirect-uri', uri],
        env,
      )
      expect(result.code).not.toBe(0)
      expect(result.stderr).toMatch(/^portico: invalid_redirect_uri: /)
      expect(result.stderr.trim().split('\n')).toHaveLength(1)
      expect(result.stdout).not.toMatch(/client_id/)
    },
  )

  it('create needs a name and a redirect URI', async () => {
    for (const args of [
      ['integrations', 'create', '--redirect-uri', 'https://app.example/cb'],
      ['integrations', 'create', '--name', 'No callback'],
      ['integrations', 'create', '--name', '   ', '--redirect-uri', 'https://app.example/cb'],
    ]) {
      const result = await runCli(args, env)
      expect(result.code, args.join(' ')).not.toBe(0)
      expect(result.stderr).toMatch(/^portico: /)
    }
    const list = await runCli(['integrations', 'list', '--json'], env)
    expect(JSON.parse(list.stdout).map((r: { client_id: string }) => r.client_id)).toEqual([
      publicId,
    ])
  })

  it('delete does not remove a self-registered client', async () => {
    const result = await runCli(['integrations', 'delete', 'pci_not_an_integration'], env)
    expect(result.code).toBe(1)
  })
})
