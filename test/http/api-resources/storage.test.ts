import { createHash } from 'node:crypto'
import { existsSync, statSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseConfig } from '../../../src/config.js'
import { type RunningServer, startServer } from '../../../src/main.js'
import { ALL_SCOPES } from '../../../src/oauth/scopes.js'
import { createLogger } from '../../../src/platform/logger.js'
import { signedFileUrl } from '../../../src/storage/file-bytes/signing.js'
import { createTestDatabase, type TestDatabase } from '../../support/databases.js'
import { tinyPdf, tinyPng, tinyZip } from '../../support/files.js'
import { type Json, readJson } from '../../support/http.js'
import { SECRET } from '../../support/instances.js'
import { freePort } from '../../support/ports.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { needsPostgres } from '../../support/skips.js'
import { issue } from '../../support/token-lifecycle.js'

const FILES = '/api/v1/storage/files'
const MB = 1024 * 1024
const PNG = tinyPng(16, 9, [200, 30, 30])
const PDF = tinyPdf(['Hello'])
const ZIP = tinyZip([{ name: 'a.txt', content: 'a' }])
const HTML = Buffer.from('<!DOCTYPE html><html><script>alert(1)</script></html>')

let server: TestServer
let uploader: string
beforeAll(async () => {
  server = await startTestServer({ env: { PORTICO_UPLOAD_MAX_BYTES: String(4 * MB) } })
  uploader = (await issue(server, { role: 'editor', scope: 'storage:write' })).accessToken
})
afterAll(async () => {
  await server?.close()
})

/** A PNG of about `size` bytes: a valid header, padded (the sniffer reads the start). */
const bigPng = (size: number) => Buffer.concat([PNG, Buffer.alloc(size - PNG.length)])

function multipart(
  bytes: Buffer,
  type: string,
  fields: Record<string, string>,
  filename = 'upload.bin',
  token = uploader,
) {
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) form.append(name, value)
  form.append('file', new Blob([bytes], { type }), filename)
  return server.fetch(FILES, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  })
}

function raw(
  bytes: Buffer,
  type: string,
  query: string,
  headers: Record<string, string> = {},
  token: string | null = uploader,
) {
  return server.fetch(`${FILES}?${query}`, {
    method: 'POST',
    headers: {
      'content-type': type,
      ...(token && { authorization: `Bearer ${token}` }),
      ...headers,
    },
    body: bytes,
  })
}

async function created(response: Response): Promise<Json> {
  const body = await readJson(response)
  expect(response.status, JSON.stringify(body)).toBe(201)
  return body
}

async function expectProblem(response: Response, status: number, code?: string): Promise<Json> {
  const body = await readJson(response)
  expect(response.status, JSON.stringify(body)).toBe(status)
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  if (code) expect(body.code).toBe(code)
  return body
}

/** GET a file URL (absolute, from the API) on the test server. */
const download = (url: string, init?: RequestInit) => fetch(url, init)

describe('uploads: multipart and raw', () => {
  it('stores a multipart upload and answers the File object with 201 and a Location', async () => {
    const response = await multipart(PNG, 'image/png', { purpose: 'course_cover' }, 'cover.png')
    const body = await created(response)
    expect(body).toMatchObject({
      object: 'file',
      filename: 'cover.png',
      content_type: 'image/png',
      size: PNG.length,
      checksum_sha256: createHash('sha256').update(PNG).digest('hex'),
      purpose: 'course_cover',
      visibility: 'public',
      width: 16,
      height: 9,
    })
    expect(body.id).toMatch(/^fil_/)
    expect(body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
    expect(body.url).toBe(`${server.issuer}/files/${body.id}/cover.png`)
    expect(response.headers.get('location')).toBe(body.url)
    const file = await download(body.url)
    expect(file.status).toBe(200)
    expect(Buffer.from(await file.arrayBuffer())).toEqual(PNG)
  })

  it('stores a raw upload: the body is the file, purpose and filename in the query', async () => {
    const body = await created(
      await raw(PDF, 'application/pdf', 'purpose=digital_product&filename=Guide%20v2.pdf'),
    )
    expect(body).toMatchObject({
      filename: 'Guide v2.pdf',
      content_type: 'application/pdf',
      size: PDF.length,
      purpose: 'digital_product',
      visibility: 'private',
    })
    expect(body.url).toMatch(/\?expires=\d+&signature=[A-Za-z0-9_-]{43}$/)
  })

  it('takes the filename from a Content-Disposition request header', async () => {
    const body = await created(
      await raw(ZIP, 'application/zip', 'purpose=lesson_attachment', {
        'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent('Übungen.zip')}`,
      }),
    )
    expect(body.filename).toBe('Übungen.zip')
  })

  it('honours the visibility asked for', async () => {
    const body = await created(
      await multipart(PNG, 'image/png', { purpose: 'digital_product', visibility: 'public' }),
    )
    expect(body.visibility).toBe('public')
    expect(body.url).not.toContain('signature')
  })

  it('replays an upload with the same Idempotency-Key', async () => {
    const headers = { 'idempotency-key': `k-${Math.random()}` }
    const first = await created(await raw(PNG, 'image/png', 'purpose=avatar', headers))
    const again = await raw(PNG, 'image/png', 'purpose=avatar', headers)
    expect(again.status).toBe(201)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect((await readJson(again)).id).toBe(first.id)
    // Other bytes of the same size under the same key are another request: refused.
    const other = Buffer.from(PNG)
    other[other.length - 1] = (other.at(-1) ?? 0) ^ 0xff
    await expectProblem(
      await raw(other, 'image/png', 'purpose=avatar', headers),
      422,
      'idempotency_key_reused',
    )
  })

  it('sanitises filenames: no path, no control characters, an extension of the type', async () => {
    const cases: Array<[string, string]> = [
      ['../../etc/passwd', 'passwd.txt'],
      ['C:\\Users\\me\\notes.txt', 'notes.txt'],
      ['evil.html', 'evil.html.txt'],
      ['a"b\u0007;c.txt', 'abc.txt'],
      ['...', 'file.txt'],
    ]
    for (const [given, stored] of cases) {
      const body = await created(
        await raw(
          Buffer.from('plain words\n'),
          'text/plain',
          `purpose=lesson_attachment&filename=${encodeURIComponent(given)}`,
        ),
      )
      expect(body.filename).toBe(stored)
    }
  })

  it('names the missing or invalid purpose, visibility and file in a 422', async () => {
    const noPurpose = await expectProblem(
      await raw(PNG, 'image/png', 'visibility=public'),
      422,
      'validation_failed',
    )
    expect(noPurpose.errors[0].field).toBe('purpose')
    const bad = await expectProblem(
      await raw(PNG, 'image/png', 'purpose=wallpaper&visibility=secret'),
      422,
    )
    expect(bad.errors.map((e: Json) => e.field).sort()).toEqual(['purpose', 'visibility'])
    const form = new FormData()
    form.append('purpose', 'avatar')
    const noFile = await server.fetch(FILES, {
      method: 'POST',
      headers: { authorization: `Bearer ${uploader}` },
      body: form,
    })
    expect((await expectProblem(noFile, 422)).errors[0].field).toBe('file')
    const empty = await expectProblem(
      await raw(Buffer.alloc(0), 'image/png', 'purpose=avatar'),
      422,
    )
    expect(empty.errors[0].code).toBe('empty')
  })
})

describe('uploads: size caps', () => {
  it('refuses a file over its purpose cap with 413 (avatars: 2 MB)', async () => {
    const body = await expectProblem(
      await raw(bigPng(2 * MB + 10), 'image/png', 'purpose=avatar'),
      413,
      'payload_too_large',
    )
    expect(body.detail).toContain('avatar')
    await created(await raw(bigPng(2 * MB + 10), 'image/png', 'purpose=course_cover'))
  })

  it('refuses a body over the configured overall cap with 413, raw and multipart', async () => {
    await expectProblem(
      await raw(bigPng(5 * MB), 'application/zip', 'purpose=digital_product'),
      413,
      'payload_too_large',
    )
    await expectProblem(
      await multipart(bigPng(5 * MB), 'image/png', { purpose: 'digital_product' }),
      413,
      'payload_too_large',
    )
    // A streamed (chunked) body has no length to judge up front: it is cut off at the cap.
    const chunk = new Uint8Array(MB)
    let sent = 0
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(PNG)
        if (sent >= 6) controller.close()
        else controller.enqueue(chunk)
        sent += 1
      },
    })
    const chunked = await server.fetch(`${FILES}?purpose=course_cover`, {
      method: 'POST',
      headers: { authorization: `Bearer ${uploader}`, 'content-type': 'image/png' },
      body: stream,
      duplex: 'half',
    } as RequestInit)
    await expectProblem(chunked, 413, 'payload_too_large')
    // A multipart file over its purpose cap, with the purpose sent after the file.
    const form = new FormData()
    form.append('file', new Blob([bigPng(3 * MB)], { type: 'image/png' }), 'big.png')
    form.append('purpose', 'logo')
    const late = await server.fetch(FILES, {
      method: 'POST',
      headers: { authorization: `Bearer ${uploader}` },
      body: form,
    })
    await expectProblem(late, 413, 'payload_too_large')
  })
})

describe('uploads: content sniffing', () => {
  it('refuses HTML declared as an image (422: the bytes are not what they claim)', async () => {
    const body = await expectProblem(
      await raw(HTML, 'image/png', 'purpose=course_cover'),
      422,
      'validation_failed',
    )
    expect(body.errors[0]).toMatchObject({ field: 'file', code: 'content_mismatch' })
    expect(body.errors[0].message).toContain('text/html')
    const multi = await multipart(HTML, 'image/png', { purpose: 'post_image' }, 'x.png')
    await expectProblem(multi, 422, 'validation_failed')
  })

  it('refuses HTML declared as text, and a PNG declared as a JPEG', async () => {
    const html = await expectProblem(
      await raw(HTML, 'text/plain', 'purpose=lesson_attachment'),
      422,
    )
    expect(html.errors[0].message).toContain('text/html')
    await expectProblem(await raw(PNG, 'image/jpeg', 'purpose=course_cover'), 422)
  })

  it('refuses markup and script types outright (415), whatever the bytes', async () => {
    for (const type of ['text/html', 'image/svg+xml', 'application/javascript', 'text/xml']) {
      const body = await expectProblem(
        await raw(PNG, type, 'purpose=lesson_attachment'),
        415,
        'unsupported_media_type',
      )
      expect(body.detail).toContain(type)
    }
    await expectProblem(
      await multipart(PNG, 'text/html', { purpose: 'lesson_attachment' }),
      415,
      'unsupported_media_type',
    )
  })

  it('refuses a type its purpose does not take (415)', async () => {
    const body = await expectProblem(await raw(PDF, 'application/pdf', 'purpose=avatar'), 415)
    expect(body.detail).toContain('image/png')
  })

  it('stores the sniffed type when the upload declares none (octet-stream)', async () => {
    const body = await created(
      await raw(PNG, 'application/octet-stream', 'purpose=post_image&filename=photo'),
    )
    expect(body.content_type).toBe('image/png')
    expect(body.filename).toBe('photo.png')
    const file = await download(body.url)
    expect(file.headers.get('content-type')).toBe('image/png')
    const html = await raw(HTML, 'application/octet-stream', 'purpose=lesson_attachment')
    expect([415, 422]).toContain(html.status)
  })
})

describe('downloads: safe serving', () => {
  it('serves with the stored type, nosniff, a sandboxing CSP, an ETag and the length', async () => {
    const body = await created(await raw(PNG, 'image/png', 'purpose=course_cover&filename=c.png'))
    const file = await download(body.url)
    expect(file.status).toBe(200)
    expect(file.headers.get('content-type')).toBe('image/png')
    expect(file.headers.get('x-content-type-options')).toBe('nosniff')
    expect(file.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'")
    expect(file.headers.get('content-disposition')).toMatch(/^inline; filename="c.png"/)
    expect(file.headers.get('content-length')).toBe(String(PNG.length))
    const etag = file.headers.get('etag') ?? ''
    expect(etag).toBe(`"${body.checksum_sha256}"`)
    const again = await download(body.url, { headers: { 'if-none-match': etag } })
    expect(again.status).toBe(304)
  })

  it('sends text, archives and videos as attachments, never as HTML', async () => {
    const text = await created(
      await raw(
        Buffer.from('hello <b>not html</b>\n'),
        'text/plain',
        'purpose=lesson_attachment&filename=page.html',
      ),
    )
    const file = await download(text.url)
    expect(file.status).toBe(200)
    expect(file.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(file.headers.get('content-disposition')).toMatch(/^attachment; filename="page.html.txt"/)
    expect(file.headers.get('content-security-policy')).toContain('sandbox')
    const zip = await created(await raw(ZIP, 'application/zip', 'purpose=digital_product'))
    const archive = await download(zip.url)
    expect(archive.headers.get('content-type')).toBe('application/zip')
    expect(archive.headers.get('content-disposition')).toMatch(/^attachment;/)
  })

  it('serves a private file only with a valid, unexpired signature (404 otherwise)', async () => {
    const body = await created(await raw(PDF, 'application/pdf', 'purpose=digital_product'))
    const url = new URL(body.url)
    expect((await download(body.url)).status).toBe(200)
    expect(url.searchParams.get('expires')).toMatch(/^\d+$/)
    const plain = `${url.origin}${url.pathname}`
    await expectProblem(await download(plain), 404, 'not_found')

    const tampered = new URL(body.url)
    const signature = tampered.searchParams.get('signature') ?? ''
    tampered.searchParams.set(
      'signature',
      `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`,
    )
    await expectProblem(await download(tampered.toString()), 404, 'not_found')

    const later = new URL(body.url)
    later.searchParams.set('expires', String(Number(later.searchParams.get('expires')) + 3600))
    await expectProblem(await download(later.toString()), 404, 'not_found')

    // Another file's signature does not open this one.
    const other = await created(await raw(PDF, 'application/pdf', 'purpose=digital_product'))
    const swapped = new URL(other.url)
    swapped.pathname = url.pathname
    await expectProblem(await download(swapped.toString()), 404, 'not_found')

    const expired = signedFileUrl(
      server.deps.config,
      body.id,
      body.filename,
      Date.now() - 2 * 3600_000,
    )
    await expectProblem(await download(expired), 404, 'not_found')
  })

  it('answers 404 problems for unknown files and odd ids', async () => {
    await expectProblem(await server.fetch('/files/fil_nope/x.png'), 404, 'not_found')
    await expectProblem(await server.fetch('/files/..%2F..%2Fetc/passwd'), 404)
  })
})

describe('storage is write-only', () => {
  it('has no list or read endpoint under /api/v1/storage', async () => {
    const body = await created(await raw(PNG, 'image/png', 'purpose=avatar'))
    const everything = (await issue(server, { role: 'owner', scope: ALL_SCOPES.join(' ') }))
      .accessToken
    for (const path of [FILES, `${FILES}/${body.id}`, '/api/v1/storage']) {
      const response = await server.fetch(path, {
        headers: { authorization: `Bearer ${everything}` },
      })
      const answer = await readJson(response)
      expect([404, 405]).toContain(response.status)
      expect(answer.object).not.toBe('list')
      expect(answer).not.toHaveProperty('data')
      expect(answer).not.toHaveProperty('checksum_sha256')
    }
  })

  it('needs storage:write: a token with every other scope cannot upload or delete', async () => {
    const others = ALL_SCOPES.filter((s) => s !== 'storage:write').join(' ')
    const { accessToken } = await issue(server, { role: 'owner', scope: others })
    const body = await expectProblem(
      await raw(PNG, 'image/png', 'purpose=avatar', {}, accessToken),
      403,
      'insufficient_scope',
    )
    expect(body.required_scopes).toEqual(['storage:write'])
    const file = await created(await raw(PNG, 'image/png', 'purpose=avatar'))
    const removal = await server.fetch(`${FILES}/${file.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${accessToken}` },
    })
    await expectProblem(removal, 403, 'insufficient_scope')
    await expectProblem(
      await raw(PNG, 'image/png', 'purpose=avatar', {}, null),
      401,
      'unauthenticated',
    )
  })
})

describe('deleting files', () => {
  it('deletes an unreferenced file (then it is gone) and refuses one a product uses (409)', async () => {
    const call = async (path: string, init: RequestInit & { json?: unknown } = {}) => {
      const { accessToken } = await issue(server, {
        role: 'owner',
        scope: 'storage:write digital_products:read digital_products:write',
      })
      return server.fetch(path, {
        ...init,
        headers: {
          authorization: `Bearer ${accessToken}`,
          ...(init.json !== undefined && { 'content-type': 'application/json' }),
        },
        ...(init.json !== undefined && { body: JSON.stringify(init.json) }),
      })
    }
    const used = await created(await raw(ZIP, 'application/zip', 'purpose=digital_product'))
    const product = await call('/api/v1/digital_products', {
      method: 'POST',
      json: {
        title: 'Pack',
        price: { amount: 500, currency: 'USD' },
        files: [{ file_id: used.id }],
      },
    })
    expect(product.status).toBe(201)
    const productId = (await readJson(product)).id
    const refused = await expectProblem(
      await call(`${FILES}/${used.id}`, { method: 'DELETE' }),
      409,
      'conflict',
    )
    expect(refused.detail).toContain(productId)
    expect((await download(used.url)).status).toBe(200)

    const loose = await created(await raw(PNG, 'image/png', 'purpose=avatar'))
    const gone = await call(`${FILES}/${loose.id}`, { method: 'DELETE' })
    expect(gone.status).toBe(204)
    await expectProblem(await download(loose.url), 404)
    await expectProblem(await call(`${FILES}/${loose.id}`, { method: 'DELETE' }), 404, 'not_found')

    // Once the product lets go of it, the file can go.
    expect((await call(`/api/v1/digital_products/${productId}`, { method: 'DELETE' })).status).toBe(
      204,
    )
    expect((await call(`${FILES}/${used.id}`, { method: 'DELETE' })).status).toBe(204)
  })

  it('refuses deleting a file a course cover or a lesson names by its URL (409)', async () => {
    const editor = await issue(server, {
      role: 'editor',
      scope: 'storage:write courses:write courses:read',
    })
    const call = (path: string, init: RequestInit = {}) =>
      server.fetch(path, {
        ...init,
        headers: {
          authorization: `Bearer ${editor.accessToken}`,
          'content-type': 'application/json',
        },
      })
    const cover = await created(await raw(PNG, 'image/png', 'purpose=course_cover'))
    const course = await call('/api/v1/courses', {
      method: 'POST',
      body: JSON.stringify({
        title: 'Covered',
        cover_image_url: cover.url,
        pricing_plans: [{ name: 'Free', type: 'free', price: { amount: 0, currency: 'USD' } }],
      }),
    })
    const courseId = (await created(course)).id
    const refused = await expectProblem(
      await call(`${FILES}/${cover.id}`, { method: 'DELETE' }),
      409,
      'conflict',
    )
    expect(refused.detail).toContain(`courses/${courseId}`)
    await call(`/api/v1/courses/${courseId}`, {
      method: 'PATCH',
      body: JSON.stringify({ cover_image_url: null }),
    })
    expect((await call(`${FILES}/${cover.id}`, { method: 'DELETE' })).status).toBe(204)
  })

  it('lets a lecturer delete only the files they uploaded', async () => {
    const lecturer = await issue(server, { role: 'lecturer', scope: 'storage:write' })
    const theirs = await created(
      await raw(PNG, 'image/png', 'purpose=post_image', {}, lecturer.accessToken),
    )
    const others = await created(await raw(PNG, 'image/png', 'purpose=post_image'))
    const remove = (id: string) =>
      server.fetch(`${FILES}/${id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${lecturer.accessToken}` },
      })
    await expectProblem(await remove(others.id), 403, 'forbidden_role')
    expect((await remove(theirs.id)).status).toBe(204)
  })
})

describe('the file store of each engine', () => {
  it('keeps files by id in a 0700 folder beside SQLite, in file_chunks on PostgreSQL', async () => {
    const body = await created(await raw(PNG, 'image/png', 'purpose=avatar&filename=me.png'))
    const db = server.deps.database.db
    const row = await db
      .selectFrom('files')
      .selectAll()
      .where('id', '=', body.id)
      .executeTakeFirst()
    const config =
      server.deps.database.dialect === 'sqlite' ? server.deps.config.database : undefined
    if (config?.dialect === 'sqlite') {
      expect(row?.storage).toBe('disk')
      const dir = path.join(path.dirname(config.file), 'files')
      expect(statSync(dir).mode & 0o777).toBe(0o700)
      expect(existsSync(path.join(dir, body.id))).toBe(true)
      expect(existsSync(path.join(dir, 'me.png'))).toBe(false)
    } else {
      expect(row?.storage).toBe('database')
      const chunks = await db
        .selectFrom('file_chunks')
        .select('data')
        .where('file_id', '=', body.id)
        .execute()
      expect(Buffer.concat(chunks.map((c) => Buffer.from(c.data)))).toEqual(PNG)
    }
  })
})

/**
 * Two servers on one PostgreSQL database: a file uploaded to one is served by the other,
 * its bytes being in the database. SQLite is one machine's database: nothing to share.
 */
const skipShared = needsPostgres('files shared between instances (storage.test)')

describe.skipIf(skipShared)('the PostgreSQL store: several instances see the same files', () => {
  let database: TestDatabase
  const servers: RunningServer[] = []
  beforeAll(async () => {
    database = await createTestDatabase()
    const port = await freePort()
    for (let i = 0; i < 2; i += 1) {
      const own = i === 0 ? port : await freePort()
      const config = parseConfig({
        PORTICO_ISSUER: `http://127.0.0.1:${port}`,
        PORT: String(own),
        DATABASE_URL: database.url,
        PORTICO_KEY_ENCRYPTION_SECRET: SECRET,
        LOG_LEVEL: 'silent',
        PORTICO_CONFIRMATIONS: 'off',
      })
      servers.push(await startServer(config, { logger: createLogger('silent') }))
    }
  })
  afterAll(async () => {
    for (const s of servers) await s.close()
    await database?.drop()
  })

  it('serves from instance B what was uploaded to instance A, private links included', async () => {
    const [a, b] = servers
    if (!a || !b) throw new Error('two servers expected')
    const onA: TestServer = {
      ...a,
      issuer: a.url,
      logs: [],
      logText: () => '',
      fetch: (path, init) => fetch(`${a.url}${path}`, init),
    }
    const { accessToken } = await issue(onA, { role: 'editor', scope: 'storage:write' })
    const bytes = tinyPdf(['shared between instances'])
    const upload = await onA.fetch(`${FILES}?purpose=digital_product&filename=shared.pdf`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/pdf' },
      body: bytes,
    })
    const body = await created(upload)
    const link = new URL(body.url)
    expect(link.searchParams.get('signature')).toBeTruthy()
    const onB = await fetch(`${b.url}${link.pathname}${link.search}`)
    expect(onB.status).toBe(200)
    expect(onB.headers.get('content-type')).toBe('application/pdf')
    expect(Buffer.from(await onB.arrayBuffer())).toEqual(bytes)
    // And a deletion on B is seen by A.
    const removal = await fetch(`${b.url}${FILES}/${body.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${accessToken}` },
    })
    expect(removal.status).toBe(204)
    expect((await onA.fetch(`${link.pathname}${link.search}`)).status).toBe(404)
  })
})
