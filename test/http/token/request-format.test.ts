import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  codeFields,
  createPerson,
  mintCode,
  postToken,
  registerTestClient,
  TOKEN,
} from '../../support/grants.js'
import { formInit, jsonInit, readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server?.close()
})

async function freshCode() {
  const client = await registerTestClient(server)
  const { user } = await createPerson(server)
  return mintCode(server, client, user)
}

async function expectError(response: Response, error: string, status = 400): Promise<string> {
  const body = await readJson(response)
  expect({ status: response.status, error: body.error }).toEqual({ status, error })
  expect(response.headers.get('content-type')).toMatch(/^application\/json/)
  expect(response.headers.get('cache-control')).toBe('no-store')
  return body.error_description
}

describe('the token endpoint takes application/x-www-form-urlencoded only', () => {
  it('refuses a JSON body with invalid_request, without reading it', async () => {
    const minted = await freshCode()
    const response = await server.fetch(TOKEN, jsonInit(codeFields(minted)))
    const description = await expectError(response, 'invalid_request')
    expect(description).toContain('application/x-www-form-urlencoded')
    // The code was not consumed by the refused request.
    expect((await postToken(server, codeFields(minted))).status).toBe(200)
  })

  it('refuses other content types, and none, with 400 invalid_request', async () => {
    const body = new URLSearchParams({ grant_type: 'authorization_code' }).toString()
    for (const type of [
      'text/plain',
      'multipart/form-data; boundary=x',
      'application/xml',
      undefined,
    ]) {
      const response = await server.fetch(TOKEN, {
        method: 'POST',
        headers: type === undefined ? {} : { 'content-type': type },
        body: type === undefined ? undefined : body,
      })
      await expectError(response, 'invalid_request')
    }
  })

  it('accepts the form content type with a charset and in any case', async () => {
    const minted = await freshCode()
    const init = formInit(codeFields(minted), {
      'content-type': 'Application/X-WWW-Form-URLEncoded; charset=UTF-8',
    })
    expect((await server.fetch(TOKEN, init)).status).toBe(200)
  })
})

describe('parameters', () => {
  it('refuses any parameter given twice with invalid_request, and the code survives', async () => {
    const minted = await freshCode()
    for (const name of [
      'grant_type',
      'code',
      'client_id',
      'code_verifier',
      'redirect_uri',
      'resource',
    ]) {
      const fields = codeFields(minted)
      const value = (fields[name] as string | undefined) ?? server.issuer
      const response = await postToken(server, { ...fields, [name]: [value, value] })
      const description = await expectError(response, 'invalid_request')
      expect(description).toContain(name)
    }
    expect((await postToken(server, codeFields(minted))).status).toBe(200)
  })

  it('treats a parameter without a value as absent (RFC 6749 §3.1)', async () => {
    const minted = await freshCode()
    const response = await postToken(server, codeFields(minted, { scope: '', state: '' }))
    expect(response.status).toBe(200)
  })

  it('ignores unknown parameters', async () => {
    const minted = await freshCode()
    expect((await postToken(server, codeFields(minted, { foo: 'bar' }))).status).toBe(200)
  })

  it('answers invalid_request without grant_type', async () => {
    const minted = await freshCode()
    const { grant_type: _, ...fields } = codeFields(minted)
    await expectError(await postToken(server, fields), 'invalid_request')
  })
})

describe('grant types', () => {
  it('answers unsupported_grant_type for JWT-bearer, token exchange, client credentials, password and others', async () => {
    const client = await registerTestClient(server)
    for (const grantType of [
      'urn:ietf:params:oauth:grant-type:jwt-bearer',
      'urn:ietf:params:oauth:grant-type:token-exchange',
      'urn:ietf:params:oauth:grant-type:device_code',
      'client_credentials',
      'password',
      'implicit',
      'AUTHORIZATION_CODE',
    ]) {
      const response = await postToken(server, {
        grant_type: grantType,
        client_id: client.clientId,
        assertion: 'eyJhbGciOiJub25lIn0.e30.',
        username: 'a',
        password: 'b',
      })
      await expectError(response, 'unsupported_grant_type')
    }
  })

  it('advertises the token endpoint and exactly the grant types it serves', async () => {
    const metadata = await readJson(await server.fetch('/.well-known/oauth-authorization-server'))
    expect(metadata.token_endpoint).toBe(`${server.issuer}${TOKEN}`)
    expect(metadata.grant_types_supported).toEqual(['authorization_code', 'refresh_token'])
    const openapi = await readJson(await server.fetch('/openapi.json'))
    expect(openapi.paths[TOKEN].post.requestBody.content).toHaveProperty(
      'application/x-www-form-urlencoded',
    )
  })

  it('does not answer GET', async () => {
    expect((await server.fetch(TOKEN)).status).toBe(404)
  })
})
