import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli.js'
import { createTestDatabase, type TestDatabase } from '../support/databases.js'

const SECRET = 'cli-test-secret-cli-test-secret-0123456'

let database: TestDatabase | undefined
afterEach(async () => {
  await database?.drop()
  database = undefined
})

describe('portico seed demo', () => {
  it('seeds an empty database once, then leaves it alone', async () => {
    database = await createTestDatabase()
    const env = { DATABASE_URL: database.url, PORTICO_KEY_ENCRYPTION_SECRET: SECRET }
    const first = await runCli(['seed', 'demo'], env)
    expect(first.code, first.stderr).toBe(0)
    expect(first.stdout).toMatch(/seeded the demo school/)
    // Which account to sign in with, and where: the issuer is the default port's.
    expect(first.stdout).toContain('Sign in at http://127.0.0.1:3000/login')
    expect(first.stdout).toMatch(/as maya@brightframe\.example \(Maya Chen, the school's owner\)/)
    expect(first.stdout).toContain('with password brightframe-demo-password')
    const second = await runCli(['seed', 'demo'], env)
    expect(second.code).toBe(0)
    expect(second.stdout).toMatch(/left as it is/)
    expect(second.stdout).not.toContain('Sign in at')
  })
})

describe('portico openapi', () => {
  it('prints the checked-in openapi.json', async () => {
    const result = await runCli(['openapi'], {})
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe(readFileSync('openapi.json', 'utf8'))
  })
})
