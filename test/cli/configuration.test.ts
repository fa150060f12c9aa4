import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli.js'

let folder: string
beforeAll(() => {
  folder = mkdtempSync(path.join(tmpdir(), 'portico-config-'))
})
afterAll(() => {
  rmSync(folder, { recursive: true, force: true })
})

describe('bad configuration stops start-up with a one-line reason and a non-zero exit', () => {
  it.concurrent.for<[string, Record<string, string>, RegExp]>([
    ['PORT=abc', { PORT: 'abc' }, /PORT must be a whole number/],
    ['an http issuer on a public host', { PORTICO_ISSUER: 'http://auth.example' }, /https/],
    [
      'a non-loopback HOST and no issuer',
      { HOST: '0.0.0.0' },
      /HOST 0\.0\.0\.0 is not a loopback address: set PORTICO_ISSUER/,
    ],
    ['an unknown database', { DATABASE_URL: 'mysql://db/portico' }, /DATABASE_URL/],
    ['an unknown log level', { LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
    [
      'PostgreSQL without a key-encryption secret',
      { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
      /PORTICO_KEY_ENCRYPTION_SECRET is required/,
    ],
  ])('serve with %s', async ([, bad, reason], { expect }) => {
    const result = await runCli(['serve'], {
      DATABASE_URL: `sqlite:${path.join(folder, 'never.db')}`,
      ...bad,
    })
    expect(result.code).not.toBe(0)
    expect(result.code).not.toBeNull()
    expect(result.stdout).toBe('')
    const lines = result.stderr.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^portico: /)
    expect(lines[0]).toMatch(reason)
  })

  it('a bad flag value is refused the same way', async () => {
    const result = await runCli(['serve', '--port', 'abc'], {
      DATABASE_URL: `sqlite:${path.join(folder, 'never.db')}`,
    })
    expect(result.code).not.toBe(0)
    expect(result.stderr.trim()).toMatch(/^portico: PORT must be a whole number/)
  })

  it('an unknown command says so and exits 2 (test/cli/help-and-typos.test.ts has the rest)', async () => {
    const result = await runCli(['frobnicate'], {
      DATABASE_URL: `sqlite:${path.join(folder, 'never.db')}`,
    })
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/^portico: unknown command "frobnicate"/)
  })
})
