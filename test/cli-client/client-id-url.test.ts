import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { Browser as Chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser } from '../support/browser.js'
import {
  type DocumentServer,
  makeCertificate,
  startDocumentServer,
} from '../support/document-server.js'
import { createPerson, type TestPerson } from '../support/flow.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { type CliHome, createCliHome, loginWithChromium, runCli } from './support.js'

/**
 * portico-cli --client-id-url: the CLI identifies itself by a Client ID Metadata Document
 * (served by the test's HTTPS server) instead of registering.
 */

let server: TestServer
let documents: DocumentServer
let chromium: Chromium
let person: TestPerson
let home: CliHome
let url: string

beforeAll(async () => {
  documents = await startDocumentServer(await makeCertificate())
  server = await startTestServer({ outbound: { ca: documents.ca } })
  chromium = await launchBrowser()
  person = await createPerson(server, 'owner')
  home = createCliHome()
  url = documents.url('/portico-cli/client.json')
  documents.json('/portico-cli/client.json', {
    client_id: url,
    client_name: 'portico-cli',
    redirect_uris: ['http://127.0.0.1/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_method: 'none',
  })
})
afterAll(async () => {
  await chromium?.close()
  await server?.close()
  await documents?.close()
  home?.remove()
})

describe('portico-cli login --client-id-url', { timeout: 60_000 }, () => {
  it('signs in with the document URL as client_id, registering nothing', async () => {
    const { result, page } = await loginWithChromium(chromium, home, server.issuer, person, {
      extraArgs: ['--client-id-url', url],
      screenshot: 'portico-cli-client-id-url',
    })
    await page.context().close()
    expect(result.stderr).not.toContain('Registered')
    expect(result.code).toBe(0)
    const session = JSON.parse(readFileSync(path.join(home.configDir, 'session.json'), 'utf8')) as {
      clientId: string
    }
    expect(session.clientId).toBe(url)
    expect(server.logs.filter((l) => l.msg === 'client registered')).toHaveLength(0)

    const whoami = await runCli(['whoami'], home.env)
    expect(whoami.code).toBe(0)
    const api = await runCli(['api', 'GET', '/api/v1/account'], home.env)
    expect(api.code).toBe(0)
  })

  it('refuses a URL that is not https before opening a browser', async () => {
    const result = await runCli(
      ['login', '--server', server.issuer, '--client-id-url', 'http://127.0.0.1/client.json'],
      home.env,
    )
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('--client-id-url must be an https URL')
  })
})
