import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli.js'
import { createTestDatabase, type TestDatabase } from '../support/databases.js'

const SECRET = 'cli-test-secret-cli-test-secret-0123456'
const URL_ID = 'https://agent.example/oauth/client.json'

let database: TestDatabase
let env: Record<string, string>
beforeAll(async () => {
  database = await createTestDatabase()
  env = { DATABASE_URL: database.url, PORTICO_KEY_ENCRYPTION_SECRET: SECRET }
})
afterAll(async () => {
  await database?.drop()
})

describe('portico integrations trust | list | untrust (Client ID Metadata Documents)', {
  timeout: 120_000,
}, () => {
  it('trusts a document URL, lists it, and untrusts it', async () => {
    const trusted = await runCli(['integrations', 'trust', URL_ID], env)
    expect(trusted).toMatchObject({ code: 0, stdout: `trusted ${URL_ID}\n` })
    expect((await runCli(['integrations', 'trust', URL_ID], env)).stdout).toContain('already')

    const text = await runCli(['integrations', 'list'], env)
    expect(text.stdout).toContain(`${URL_ID}  (trusted metadata document)`)
    const json = JSON.parse((await runCli(['integrations', 'list', '--json'], env)).stdout)
    expect(json).toContainEqual(
      expect.objectContaining({ client_id: URL_ID, trusted_metadata_document: true }),
    )

    expect((await runCli(['integrations', 'untrust', URL_ID], env)).code).toBe(0)
    const again = await runCli(['integrations', 'untrust', URL_ID], env)
    expect(again.code).toBe(1)
    expect(again.stderr).toContain('is not trusted')
    expect((await runCli(['integrations', 'list'], env)).stdout).not.toContain(URL_ID)
  })

  it('refuses a URL that cannot be a client_id, judged as written', async () => {
    for (const url of [
      'http://agent.example/client.json',
      'https://agent.example/a/../client.json',
      'https://agent.example/',
      'https://user@agent.example/client.json',
    ]) {
      const result = await runCli(['integrations', 'trust', url], env)
      expect(result.code).toBe(1)
      expect(result.stderr).toMatch(/^portico: client_id URL/)
    }
  })
})
