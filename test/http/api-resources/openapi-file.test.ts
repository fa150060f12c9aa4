import { Validator } from '@seriousme/openapi-schema-validator'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openApiDocumentFor } from '../../../src/http/openapi-file.js'
import { readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server?.close()
})

describe('openapi.json, checked in', () => {
  it('is the document the declarations generate (npm run openapi rewrites it)', async () => {
    const text = `${JSON.stringify(openApiDocumentFor(), null, 2)}\n`
    await expect(text).toMatchFileSnapshot('../../../openapi.json')
  })

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(openApiDocumentFor())
    expect(result.errors ?? []).toEqual([])
  })

  it('is what the server serves, but for the issuer', async () => {
    const served = await readJson(await server.fetch('/openapi.json'))
    expect(served).toEqual(openApiDocumentFor(server.issuer))
  })

  it('is rendered for people at /docs: every collection, its operations and scopes', async () => {
    const response = await server.fetch('/docs')
    expect(response.status).toBe(200)
    const page = await response.text()
    for (const text of [
      'id="api-courses"',
      '/api/v1/courses/{id}/publish',
      'courses:write',
      'id="schema-Course"',
    ])
      expect(page).toContain(text)
  })
})
