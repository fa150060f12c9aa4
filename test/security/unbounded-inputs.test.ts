import { maxHeaderSize } from 'node:http'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect, issueForMcp, textJson } from '../mcp/support.js'
import { tinyPng } from '../support/files.js'
import { type Json, readJson } from '../support/http.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { issue } from '../support/token-lifecycle.js'

/**
 * Input whose length nothing bounded before it met a regular expression or a scan: a file's
 * name inside a multipart body (as long as the body), and over MCP the arguments REST takes
 * in its URL or headers, which only the body's limit (a 25 MiB file in base64) held. Each is
 * answered as its own kind of input is, quickly; none hangs the server.
 */

const FILES = '/api/v1/storage/files'
/** Bounds the long name's test: the quadratic pass over it took minutes. */
const ANSWER_TIMEOUT = 20_000

let server: TestServer
let mcp: Client
let restToken: string
beforeAll(async () => {
  server = await startTestServer()
  const scope = 'storage:write courses:read'
  mcp = await connect(server, (await issueForMcp(server, { role: 'owner', scope })).accessToken)
  restToken = (await issue(server, { role: 'owner', scope })).accessToken
})
afterAll(async () => {
  await mcp?.close()
  await server?.close()
})

const PNG = tinyPng(2, 2, [40, 160, 90])

/** A tool call's answer: the problem of a tool error, or the structured result. */
async function call(name: string, args: Record<string, unknown>): Promise<Json> {
  const result = await mcp.callTool({ name, arguments: args })
  return result.isError ? textJson(result) : (result.structuredContent as Json)
}

describe('file names: any length, sanitised in linear time', () => {
  it(
    'stores a multipart file named with 200,000 dots under its first characters and its type’s extension',
    async () => {
      // Dots between two letters: trimming trailing dots with /[\s.]+$/ retried from each of
      // them, 200,000² steps (a minute or two, the server's event loop and this test's
      // timer blocked all along: the test fails once it is over). A body may name its file
      // with 25 MiB.
      const name = `x${'.'.repeat(200_000)}x`
      const form = new FormData()
      form.append('purpose', 'course_cover')
      form.append('file', new Blob([PNG], { type: 'image/png' }), name)
      const response = await server.fetch(FILES, {
        method: 'POST',
        headers: { authorization: `Bearer ${restToken}` },
        body: form,
        signal: AbortSignal.timeout(ANSWER_TIMEOUT),
      })
      const body = await readJson(response)
      expect(response.status, JSON.stringify(body).slice(0, 300)).toBe(201)
      expect(body.filename).toBe(`x${'.'.repeat(145)}.png`)
    },
    ANSWER_TIMEOUT,
  )

  it('keeps what a name says when it is short, as before', async () => {
    const stored = await call('storage_upload', {
      content_base64: PNG.toString('base64'),
      media_type: 'image/png',
      purpose: 'course_cover',
      filename: ' ../dir\\ "My"  cover\t\u0007.. ',
    })
    expect(stored.filename).toBe('My cover.png')
  })
})

describe('MCP: arguments REST takes in its URL or headers are no longer than those carry', () => {
  const atLimit = 'x'.repeat(maxHeaderSize)
  const over = 'x'.repeat(maxHeaderSize + 1)
  const tooLong = (field: string) => ({
    status: 422,
    code: 'validation_failed',
    errors: [expect.objectContaining({ field, code: 'too_long' })],
  })

  it('refuses a query argument longer than a request’s headers may be (422), takes one as long', async () => {
    expect(await call('courses_list', { q: over })).toMatchObject(tooLong('q'))
    expect(await call('courses_list', { q: atLimit })).toMatchObject({ object: 'list', data: [] })
    // A list as its items joined: a comma-separated `fields` of a million names.
    const fields = Array.from({ length: 1_000_000 }, () => 'id')
    expect(await call('courses_list', { fields })).toMatchObject(tooLong('fields'))
  })

  it('refuses a path argument that long (422), and answers one as long as REST’s with 404', async () => {
    expect(await call('courses_get', { id: `crs_${over}` })).toMatchObject(tooLong('id'))
    expect(await call('courses_get', { id: atLimit })).toMatchObject({
      status: 404,
      code: 'not_found',
    })
  })

  it('refuses a file’s name or media type that long, before its content is read', async () => {
    const upload = (args: Record<string, unknown>) =>
      call('storage_upload', {
        content_base64: PNG.toString('base64'),
        media_type: 'image/png',
        purpose: 'course_cover',
        ...args,
      })
    expect(await upload({ filename: over })).toMatchObject(tooLong('filename'))
    expect(await upload({ media_type: `image/png;${over}` })).toMatchObject(tooLong('media_type'))
    const stored = await upload({ filename: `x${'.'.repeat(maxHeaderSize - 2)}x` })
    expect(stored.filename).toBe(`x${'.'.repeat(145)}.png`)
  })
})

describe('HTML fields: a tag the sanitiser would take seconds over is refused', () => {
  const post = (body: string) =>
    server.fetch('/api/v1/courses', {
      method: 'POST',
      headers: { authorization: `Bearer ${htmlToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        title: 'Spaced out',
        description: body,
        pricing_plans: [{ name: 'Free', type: 'free', price: { amount: 0, currency: 'USD' } }],
      }),
    })
  let htmlToken: string
  beforeAll(async () => {
    htmlToken = (await issue(server, { role: 'owner', scope: 'courses:write' })).accessToken
  })

  it(
    'answers one tag of 64 KB full of attributes with 422 at once (it took 23 s)',
    async () => {
      const response = await post(`<p ${'x=x '.repeat(15_000)}>`)
      expect(response.status).toBe(422)
      expect((await readJson(response)).errors).toContainEqual(
        expect.objectContaining({ field: 'description', code: 'too_complex' }),
      )
    },
    ANSWER_TIMEOUT,
  )

  it('keeps long ordinary HTML: many tags, long attributes, quoted spaces', async () => {
    const paragraph = `<p><a href="https://example.com/${'a'.repeat(1500)}" title="${'word '.repeat(60)}">link</a> ${'text '.repeat(40)}</p>`
    const response = await post(paragraph.repeat(20))
    expect(response.status).toBe(201)
  })
})
