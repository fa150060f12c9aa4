import { Validator } from '@seriousme/openapi-schema-validator'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Json, readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'

let server: TestServer
let doc: Json
beforeAll(async () => {
  server = await startTestServer()
  doc = await readJson(await server.fetch('/openapi.json'))
})
afterAll(async () => {
  await server?.close()
})

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const

/** Every string in the document that is a URL under the issuer. */
function urlsIn(value: unknown, found: Set<string> = new Set()): Set<string> {
  if (typeof value === 'string' && value.startsWith(`${server.issuer}/`)) found.add(value)
  else if (value && typeof value === 'object')
    for (const v of Object.values(value)) urlsIn(v, found)
  return found
}

describe('/openapi.json is a valid OpenAPI 3.1 document', () => {
  it('declares OpenAPI 3.1 and the issuer as its server', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/)
    expect(doc.servers).toEqual([{ url: server.issuer }])
  })

  it('validates against the OpenAPI 3.1 schema', async () => {
    const validator = new Validator()
    const result = await validator.validate(doc)
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect(validator.version).toBe('3.1')
  })

  it('the validator is real: it refuses a broken document', async () => {
    const broken = structuredClone(doc)
    delete broken.info
    expect((await new Validator().validate(broken)).valid).toBe(false)
  })

  it('gives every operation a unique operationId', () => {
    const ids: string[] = []
    for (const item of Object.values(doc.paths as Record<string, Json>)) {
      for (const method of METHODS) if (item[method]) ids.push(item[method].operationId)
    }
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true)
    expect(new Set(ids).size).toBe(ids.length)
  })

  it('describes the endpoints of this issue', () => {
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/.well-known/oauth-authorization-server',
        '/.well-known/openid-configuration',
        '/.well-known/oauth-protected-resource',
        '/api/oauth/register',
        '/openapi.json',
        '/healthz',
        '/readyz',
      ]),
    )
  })
})

describe('every path in the document answers', () => {
  it('with a status the document declares for that operation', async () => {
    const paths = Object.entries(doc.paths as Record<string, Json>)
    expect(paths.length).toBeGreaterThan(0)
    for (const [template, item] of paths) {
      const path = template.replace(/\{[^}]+\}/g, 'nonexistent')
      for (const method of METHODS) {
        const operation = item[method]
        if (!operation) continue
        const response = await server.fetch(path, {
          method: method.toUpperCase(),
          ...(method !== 'get' &&
            method !== 'head' &&
            method !== 'delete' && {
              headers: { 'content-type': 'application/json' },
              body: '{}',
            }),
        })
        await response.arrayBuffer()
        const declared = Object.keys(operation.responses ?? {})
        const label = `${method.toUpperCase()} ${template} -> ${response.status}`
        if (!template.includes('{')) expect(response.status, label).not.toBe(404)
        // 405 only where the document says so (GET and DELETE /mcp: a stateless MCP endpoint).
        if (!declared.includes('405')) expect(response.status, label).not.toBe(405)
        expect(
          declared.includes(String(response.status)) ||
            declared.includes(`${String(response.status)[0]}XX`) ||
            declared.includes('default'),
          label,
        ).toBe(true)
      }
    }
  })

  it('never names a URL under the issuer that does not answer', async () => {
    for (const url of urlsIn(doc)) {
      const path = url.slice(server.issuer.length)
      const get = await server.fetch(path)
      const post = await server.fetch(path, { method: 'POST' })
      await Promise.all([get.arrayBuffer(), post.arrayBuffer()])
      expect(get.status !== 404 || post.status !== 404, url).toBe(true)
    }
  })
})
