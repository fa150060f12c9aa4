import { spawn } from 'node:child_process'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPerson, type TestPerson } from '../support/flow.js'
import { startTestServer, type TestServer } from '../support/server.js'

/**
 * The README's curl walkthrough, its commands read from README.md at run time, against a
 * started Portico: if the documentation drifts from the server, this fails.
 */

const SCRIPT = path.resolve('test/interop/readme-walkthrough.sh')

let server: TestServer
let person: TestPerson

beforeAll(async () => {
  server = await startTestServer()
  person = await createPerson(server, 'owner')
})
afterAll(async () => {
  await server?.close()
})

function runWalkthrough(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [SCRIPT, path.resolve('README.md'), server.issuer], {
      env: {
        PATH: process.env.PATH ?? '',
        PORTICO_EMAIL: person.email,
        PORTICO_PASSWORD: person.password,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => {
      stdout += String(d)
    })
    child.stderr.on('data', (d) => {
      stderr += String(d)
    })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

describe('the README walkthrough, run with curl', { timeout: 60_000 }, () => {
  it('registers, authorizes, exchanges, calls the API, refreshes and revokes as documented', async () => {
    const { code, stdout, stderr } = await runWalkthrough()
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' })
    expect(stdout).toContain('ok 1 - metadata names the issuer')
    expect(stdout).toContain('ok 11 - after revocation the refreshed refresh token is refused')
    expect(stdout).toMatch(/walkthrough: 11 checks passed/)
  })
})
