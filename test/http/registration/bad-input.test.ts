import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Json, jsonInit, readJson } from '../../support/http.js'
import {
  countClients,
  LOOPBACK,
  type RawAnswer,
  REGISTER,
  rawRequest,
  register,
} from '../../support/registration.js'
import { startTestServer, type TestServer } from '../../support/server.js'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server?.close()
})

const valid = JSON.stringify({ redirect_uris: [LOOPBACK] })

/** The answer is an RFC 6749 §5.2 error: JSON, no-store, error and error_description only. */
function expectOAuthError(answer: RawAnswer, status: number, error: string): Json {
  expect(answer.status).toBe(status)
  expect(answer.headers['content-type']).toMatch(/^application\/json/)
  expect(answer.headers['cache-control']).toBe('no-store')
  const body = JSON.parse(answer.text) as Json
  expect(Object.keys(body).sort()).toEqual(['error', 'error_description'])
  expect(body.error).toBe(error)
  expect(body.error_description).toEqual(expect.any(String))
  expect(body.error_description.length).toBeGreaterThan(10)
  return body
}

async function send(headers: Record<string, string>, body?: string | Buffer): Promise<RawAnswer> {
  return rawRequest(`${server.issuer}${REGISTER}`, { headers, body })
}

async function expectNothingStored<T>(action: () => Promise<T>): Promise<T> {
  const before = await countClients(server)
  const result = await action()
  expect(await countClients(server)).toBe(before)
  return result
}

describe('malformed JSON is a 400 invalid_request, nothing stored', () => {
  it.each([
    ['an empty body', ''],
    ['truncated JSON', '{"redirect_uris":['],
    ['single quotes', "{'redirect_uris':[]}"],
    ['a trailing comma', `{"redirect_uris":["${LOOPBACK}"],}`],
    ['a comment', `{"redirect_uris":["${LOOPBACK}"]} // hi`],
    ['two documents', `${valid}${valid}`],
    ['form encoding sent as JSON', `redirect_uris=${LOOPBACK}`],
  ])('%s', async (_label, body) => {
    await expectNothingStored(async () =>
      expectOAuthError(
        await send({ 'content-type': 'application/json' }, body),
        400,
        'invalid_request',
      ),
    )
  })

  it('refuses invalid UTF-8 without storing it', async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"redirect_uris":["http://127.0.0.1:8080/'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"]}'),
    ])
    const answer = await expectNothingStored(() =>
      send({ 'content-type': 'application/json' }, bytes),
    )
    expect(answer.status).toBe(400)
  })
})

describe('a JSON value that is not an object is refused', () => {
  it.each([
    ['an array', `[${valid}]`],
    ['a string', JSON.stringify(valid)],
    ['null', 'null'],
    ['a number', '42'],
    ['true', 'true'],
  ])('%s', async (_label, body) => {
    const error = await expectNothingStored(async () =>
      expectOAuthError(
        await send({ 'content-type': 'application/json' }, body),
        400,
        'invalid_client_metadata',
      ),
    )
    expect(error.error_description).toMatch(/JSON object/)
  })
})

describe('a wrong Content-Type is a 415 invalid_request', () => {
  it.each([
    ['form encoding', 'application/x-www-form-urlencoded', `redirect_uris=${LOOPBACK}`],
    ['text/plain', 'text/plain', valid],
    ['text/plain with charset', 'text/plain; charset=utf-8', valid],
    ['multipart', 'multipart/form-data; boundary=x', `--x\r\n\r\n${valid}\r\n--x--`],
    ['XML', 'application/xml', '<redirect_uris/>'],
    ['a JSON-looking type', 'application/json-patch+json', valid],
    ['another structured suffix', 'application/merge-patch+json', valid],
    ['octet stream', 'application/octet-stream', valid],
  ])('%s', async (_label, contentType, body) => {
    await expectNothingStored(async () =>
      expectOAuthError(await send({ 'content-type': contentType }, body), 415, 'invalid_request'),
    )
  })

  it('a missing Content-Type', async () => {
    await expectNothingStored(async () =>
      expectOAuthError(await send({}, valid), 415, 'invalid_request'),
    )
  })

  it('accepts application/json with parameters and in any case', async () => {
    for (const contentType of ['application/json; charset=utf-8', 'Application/JSON']) {
      const answer = await send({ 'content-type': contentType }, valid)
      expect(answer.status, contentType).toBe(201)
    }
  })
})

describe('a body over 64 KiB is a 413 in OAuth JSON format', () => {
  const padding = (size: number) =>
    JSON.stringify({ redirect_uris: [LOOPBACK], software_id: 'x'.repeat(size) })

  it('with a Content-Length', async () => {
    await expectNothingStored(async () =>
      expectOAuthError(
        await send({ 'content-type': 'application/json' }, padding(70 * 1024)),
        413,
        'invalid_request',
      ),
    )
  })

  it('sent in chunks without a length', async () => {
    await expectNothingStored(async () =>
      expectOAuthError(
        await send(
          { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
          padding(200 * 1024),
        ),
        413,
        'invalid_request',
      ),
    )
  })

  it('through fetch, too', async () => {
    const response = await server.fetch(REGISTER, jsonInit(padding(65 * 1024)))
    expect(response.status).toBe(413)
    expect((await readJson(response)).error).toBe('invalid_request')
  })

  it('accepts a body just under the bound', async () => {
    const body = padding(64 * 1024 - 200)
    expect(Buffer.byteLength(body)).toBeLessThan(64 * 1024)
    expect((await send({ 'content-type': 'application/json' }, body)).status).toBe(201)
  })
})

describe('wrong types and empty arrays are refused, nothing stored', () => {
  it.each([
    ['redirect_uris missing', { redirect_uris: undefined }],
    ['redirect_uris a string', { redirect_uris: LOOPBACK }],
    ['redirect_uris null', { redirect_uris: null }],
    ['redirect_uris an object', { redirect_uris: { 0: LOOPBACK } }],
    ['redirect_uris empty', { redirect_uris: [] }],
    ['client_name a number', { client_name: 7 }],
    ['client_name an array', { client_name: ['a'] }],
    ['client_name null', { client_name: null }],
    ['token_endpoint_auth_method an array', { token_endpoint_auth_method: ['none'] }],
    ['token_endpoint_auth_method null', { token_endpoint_auth_method: null }],
    ['application_type a boolean', { application_type: true }],
    ['grant_types a string', { grant_types: 'authorization_code' }],
    ['grant_types empty', { grant_types: [] }],
    ['grant_types with a number', { grant_types: ['authorization_code', 1] }],
    ['response_types a string', { response_types: 'code' }],
    ['response_types empty', { response_types: [] }],
    ['scope an array', { scope: ['openid'] }],
    ['scope a number', { scope: 1 }],
    ['id_token_signed_response_alg none', { id_token_signed_response_alg: 'none' }],
    ['id_token_signed_response_alg HS256', { id_token_signed_response_alg: 'HS256' }],
  ])('%s', async (_label, fields) => {
    const answer = await expectNothingStored(() =>
      register(server, { redirect_uris: [LOOPBACK], ...fields }),
    )
    expect(answer.status).toBe(400)
    expect(answer.headers.get('cache-control')).toBe('no-store')
    expect(answer.body.error).toBe('invalid_client_metadata')
    expect(answer.body.error_description).toEqual(expect.any(String))
  })
})

describe('duplicate keys are refused: two parsers could read different values', () => {
  it.each([
    [
      'redirect_uris twice',
      `{"redirect_uris":["${LOOPBACK}"],"redirect_uris":["https://evil.example/cb"]}`,
    ],
    [
      'token_endpoint_auth_method twice',
      `{"redirect_uris":["${LOOPBACK}"],"token_endpoint_auth_method":"none","token_endpoint_auth_method":"client_secret_post"}`,
    ],
    ['a key spelled with an escape', `{"redirect_uris":["${LOOPBACK}"],"redirect\\u005furis":[]}`],
    ['an ignored key twice', `{"redirect_uris":["${LOOPBACK}"],"x":1,"x":2}`],
    ['a nested key twice', `{"redirect_uris":["${LOOPBACK}"],"jwks":{"keys":[],"keys":[]}}`],
    [
      '__proto__',
      `{"redirect_uris":["${LOOPBACK}"],"__proto__":{"token_endpoint_auth_method":"x"}}`,
    ],
    ['constructor', `{"redirect_uris":["${LOOPBACK}"],"constructor":{"prototype":{}}}`],
  ])('%s', async (_label, body) => {
    const error = await expectNothingStored(async () =>
      expectOAuthError(
        await send({ 'content-type': 'application/json' }, body),
        400,
        'invalid_request',
      ),
    )
    expect(error.error_description).toMatch(/twice|not allowed/)
  })

  it('does not mistake key-like text inside values for duplicate keys', async () => {
    const body = `{"redirect_uris":["${LOOPBACK}"],"client_name":"\\"redirect_uris\\": x"}`
    const answer = await send({ 'content-type': 'application/json' }, body)
    expect(answer.status).toBe(201)
    expect(JSON.parse(answer.text).client_name).toBe('"redirect_uris": x')
  })
})

describe('registration takes only POST', () => {
  it.each(['GET', 'PUT', 'DELETE', 'PATCH'])('%s is not a registration', async (method) => {
    const response = await server.fetch(REGISTER, { method })
    expect(response.status).toBe(404)
  })
})
