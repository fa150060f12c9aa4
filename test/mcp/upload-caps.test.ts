import { createHash } from 'node:crypto'
import { request } from 'node:http'
import { crc32 } from 'node:zlib'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mcpBodyLimit } from '../../src/http/mcp-routes.js'
import { PURPOSES, type PurposeRule } from '../../src/storage/file-bytes/policy.js'
import type { FilePurpose } from '../../src/storage/tables/storage.js'
import { tinyPng } from '../support/files.js'
import { type Json, readJson } from '../support/http.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { issue } from '../support/token-lifecycle.js'
import { connect, issueForMcp, textJson } from './support.js'

/**
 * Every upload cap, over MCP and over REST, on the default configuration (25 MiB overall): a
 * file exactly at its purpose's cap is stored, and so is one a byte under; a byte over is 413
 * `payload_too_large` and nothing is stored. Over MCP the base64 of the largest file must
 * reach the tool (the body limit of /mcp admits it, wrapped in lines as MIME wraps it), its
 * size be judged from the string's length before anything else, and its characters be
 * checked without a backtracking expression (one overflowed V8's stack from 3.2 MiB on).
 */

const FILES = '/api/v1/storage/files'
/** Uploads of 25 MiB over a loaded machine's loopback, into PostgreSQL. */
const BIG_UPLOAD_TIMEOUT = 120_000

let server: TestServer
let mcp: Client
let restToken: string
beforeAll(async () => {
  server = await startTestServer()
  const scope = 'storage:write'
  mcp = await connect(server, (await issueForMcp(server, { role: 'owner', scope })).accessToken)
  restToken = (await issue(server, { role: 'owner', scope })).accessToken
})
afterAll(async () => {
  await mcp?.close()
  await server?.close()
})

/**
 * A valid PNG of exactly `size` bytes: a 2 × 2 image with a private ancillary chunk (`paDd`,
 * which decoders skip) padding it, its bytes every value 0–255 so that the base64 holds
 * every character of the alphabet, `+` and `/` among them.
 */
function pngOfSize(size: number): Buffer {
  const png = tinyPng(2, 2, [10, 120, 200])
  const end = png.length - 12 // IEND
  const data = Buffer.alloc(size - png.length - 12)
  for (let i = 0; i < data.length; i += 1) data[i] = (i * 7) & 0xff
  const head = Buffer.alloc(8)
  head.writeUInt32BE(data.length, 0)
  head.write('paDd', 4, 'latin1')
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4))))
  return Buffer.concat([png.subarray(0, end), head, data, crc, png.subarray(end)])
}

/** Base64 in lines of 76 characters ended by CR LF, as MIME (RFC 2045 §6.8) writes it. */
function mimeBase64(bytes: Buffer): string {
  const text = bytes.toString('base64')
  const lines: string[] = []
  for (let at = 0; at < text.length; at += 76) lines.push(text.slice(at, at + 76))
  return lines.join('\r\n')
}

/** Each cap once, with a purpose that has it and takes PNGs. */
function capsOf(overall: number): Array<{ cap: number; purpose: FilePurpose }> {
  const caps = new Map<number, FilePurpose>()
  for (const [purpose, rule] of Object.entries(PURPOSES) as Array<[FilePurpose, PurposeRule]>)
    if (rule.types.includes('image/png') && !caps.has(Math.min(rule.maxBytes, overall)))
      caps.set(Math.min(rule.maxBytes, overall), purpose)
  return [...caps].map(([cap, purpose]) => ({ cap, purpose }))
}

const fileCount = async () =>
  Number(
    (
      await server.deps.database.db
        .selectFrom('files')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  )

/** What an upload answered, over either binding: its status and its JSON. */
interface Answer {
  readonly status: number
  readonly body: Json
}

async function overMcp(purpose: string, content: string): Promise<Answer> {
  const result = await mcp.callTool(
    {
      name: 'storage_upload',
      arguments: { content_base64: content, media_type: 'image/png', purpose },
    },
    undefined,
    { timeout: BIG_UPLOAD_TIMEOUT },
  )
  if (!result.isError) return { status: 201, body: result.structuredContent as Json }
  const problem = textJson(result)
  return { status: Number(problem.status), body: problem }
}

async function overRest(purpose: string, bytes: Buffer): Promise<Answer> {
  const response = await server.fetch(`${FILES}?purpose=${purpose}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${restToken}`, 'content-type': 'image/png' },
    body: bytes,
    signal: AbortSignal.timeout(BIG_UPLOAD_TIMEOUT),
  })
  return { status: response.status, body: await readJson(response) }
}

type Upload = (purpose: string, bytes: Buffer, wrapped?: boolean) => Promise<Answer>

const BINDINGS: Readonly<Record<'MCP' | 'REST', Upload>> = {
  MCP: (purpose: string, bytes: Buffer, wrapped = false) =>
    overMcp(purpose, wrapped ? mimeBase64(bytes) : bytes.toString('base64')),
  REST: (purpose: string, bytes: Buffer) => overRest(purpose, bytes),
}

describe('upload caps: at the cap, a byte under and a byte over, over MCP and REST', () => {
  it('has the caps of the purposes, the largest the configured overall one', () => {
    const caps = capsOf(server.deps.config.uploadMaxBytes).map((c) => c.cap)
    expect(caps.sort((a, b) => a - b)).toEqual([2, 10, 25].map((mb) => mb * 1024 * 1024))
    expect(server.deps.config.uploadMaxBytes).toBe(25 * 1024 * 1024)
  })

  for (const [binding, upload] of Object.entries(BINDINGS))
    for (const { cap, purpose } of capsOf(25 * 1024 * 1024))
      it(
        `${binding}: ${purpose} stores ${cap} and ${cap - 1} bytes, refuses ${cap + 1} with 413`,
        async () => {
          for (const size of [cap, cap - 1]) {
            const png = pngOfSize(size)
            // At the cap the base64 goes in MIME lines: the longest body a file may take.
            const { status, body } = await upload(purpose, png, size === cap)
            expect({ size, status, code: body.code }).toEqual({
              size,
              status: 201,
              code: undefined,
            })
            expect(body).toMatchObject({
              size,
              purpose,
              content_type: 'image/png',
              width: 2,
              height: 2,
              checksum_sha256: createHash('sha256').update(png).digest('hex'),
            })
          }
          const before = await fileCount()
          const { status, body } = await upload(purpose, pngOfSize(cap + 1))
          expect({ status, code: body.code }).toEqual({ status: 413, code: 'payload_too_large' })
          expect(body.detail).toContain(`${purpose} may be at most ${cap} bytes`)
          expect(await fileCount()).toBe(before)
        },
        BIG_UPLOAD_TIMEOUT * 3,
      )
})

describe('MCP: the size of a file’s base64 before its characters', () => {
  it('refuses base64 a byte over the cap with 413 whatever its characters; within, a 422', async () => {
    const cap = PURPOSES.avatar.maxBytes
    const length = Math.ceil((cap + 1) / 3) * 4
    const before = await fileCount()
    const over = await overMcp('avatar', '!'.repeat(length))
    expect({ status: over.status, code: over.body.code }).toEqual({
      status: 413,
      code: 'payload_too_large',
    })
    const within = await overMcp('avatar', '!'.repeat(length - 4))
    expect(within).toMatchObject({
      status: 422,
      body: {
        code: 'validation_failed',
        errors: [{ field: 'content_base64', code: 'invalid_base64' }],
      },
    })
    // 14 million characters, valid but for the last: the check reads them all, and answers.
    const cover = PURPOSES.course_cover.maxBytes - 1 // a multiple of 3: no padding
    const almost = `${pngOfSize(cover).toString('base64').slice(0, -4)}AAA!`
    expect((await overMcp('course_cover', almost)).body.errors).toEqual([
      expect.objectContaining({ field: 'content_base64', code: 'invalid_base64' }),
    ])
    expect(await fileCount()).toBe(before)
  })

  it('answers a body beyond /mcp’s limit with a JSON-RPC error and 413, before reading it', async () => {
    const limit = mcpBodyLimit(server.deps.config.uploadMaxBytes)
    // The base64 of the largest file fits, even in MIME lines, and so does the message.
    expect(limit).toBeGreaterThan(mimeBase64(Buffer.alloc(25 * 1024 * 1024)).length + 1024)
    const { hostname, port } = new URL(server.issuer)
    const answer = await new Promise<{ status: number; type: string; text: string }>(
      (resolve, reject) => {
        const req = request({
          host: hostname,
          port,
          method: 'POST',
          path: '/mcp',
          agent: false,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'content-length': limit + 1,
          },
        })
        req.on('response', (res) => {
          let text = ''
          res.setEncoding('utf8')
          res.on('data', (chunk: string) => {
            text += chunk
          })
          res.on('end', () => {
            resolve({
              status: res.statusCode ?? 0,
              type: String(res.headers['content-type']),
              text,
            })
            req.destroy()
          })
        })
        req.on('error', reject)
        req.write('{"jsonrpc":"2.0",')
      },
    )
    expect(answer.status).toBe(413)
    expect(answer.type).toMatch(/^application\/json/)
    expect(JSON.parse(answer.text)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: expect.stringContaining(`at most ${limit} bytes`) },
    })
  })
})
