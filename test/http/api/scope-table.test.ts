import { existsSync, readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { useDemoServer } from '../../support/demo.js'
import { type Json, readJson } from '../../support/http.js'
import type { TestServer } from '../../support/server.js'
import { issue } from '../../support/token-lifecycle.js'

/**
 * The scope table of the specification (SPEC.md, "Scopes"): each resource and whether it has
 * a read and a write scope. Copied here so the suite runs without ../shared; when the
 * specification is beside the checkout, the first test checks the copy against it.
 */
const TABLE: ReadonlyArray<readonly [string, boolean, boolean]> = [
  ['courses', true, true],
  ['students', true, true],
  ['members', true, true],
  ['analytics', true, false],
  ['curriculum', true, true],
  ['orders', true, false],
  ['school', true, true],
  ['appearance', true, true],
  ['events', true, true],
  ['membership_plans', true, true],
  ['coupons', true, true],
  ['posts', true, true],
  ['subscriptions', true, true],
  ['digital_products', true, true],
  ['comments', true, false],
  ['lecturers', true, true],
  ['storage', false, true],
  ['forms', true, false],
  ['pages', true, true],
  ['account', true, true],
]
const SCOPES = TABLE.flatMap(([name, read, write]) => [
  ...(read ? [`${name}:read`] : []),
  ...(write ? [`${name}:write`] : []),
])
const SPEC = new URL('../../../../shared/SPEC.md', import.meta.url)

/** One operation of the API as the OpenAPI document describes it. */
interface Operation {
  readonly method: string
  readonly template: string
  /** Callable without a token (public data, or no scope at all). */
  readonly anonymous: boolean
  /** The scopes that allow it (any one of them). */
  readonly scopes: readonly string[]
  /** Its required query parameters, given the letter a (search's `q`). */
  readonly query: string
}

let server: TestServer
let operations: Operation[]
/** Real ids for the path parameters of read operations, by template. */
const paths = new Map<string, string>()

const demo = useDemoServer()
beforeAll(async () => {
  server = demo()
  const document = await readJson(await server.fetch('/openapi.json'))
  operations = Object.entries(document.paths as Record<string, Record<string, Json>>)
    .filter(([template]) => template.startsWith('/api/v1/'))
    .flatMap(([template, item]) =>
      Object.entries(item)
        .filter(([method]) => ['get', 'post', 'patch', 'put', 'delete'].includes(method))
        .map(([method, op]) => {
          const security = (op.security ?? []) as Array<Record<string, string[]>>
          const required = ((op.parameters ?? []) as Json[])
            .filter((p) => p.in === 'query' && p.required === true)
            .map((p) => `${p.name}=a`)
          return {
            method: method.toUpperCase(),
            template,
            anonymous: security.length === 0 || security.some((s) => Object.keys(s).length === 0),
            scopes: security.flatMap((s) => s.oauth2 ?? []),
            query: required.length > 0 ? `?${required.join('&')}` : '',
          }
        }),
    )
  const everything = await issue(server, { role: 'owner', scope: SCOPES.join(' ') })
  for (const op of operations)
    if (op.method === 'GET')
      paths.set(op.template, await realPath(op.template, everything.accessToken))
}, 120_000)

/**
 * Fills a template's parameters with ids of the demo school: each parameter takes a record of
 * the collection before it (or of the collection its name says, `course_id` → courses), the
 * first one under which the rest of the template resolves too; an id that cannot be found
 * stays made up, which the operation must then answer 404.
 */
async function realPath(template: string, token: string): Promise<string> {
  const segments = template.split('/').slice(1)
  async function resolve(path: string, rest: string[]): Promise<string | undefined> {
    const [segment, ...after] = rest
    if (segment === undefined) return path
    const param = /^\{(\w+)\}$/.exec(segment)?.[1]
    if (!param) return resolve(`${path}/${segment}`, after)
    for (const collection of [path, `/api/v1/${param.replace(/_id$/, '')}s`]) {
      const response = await get(`${collection}?limit=100`, token)
      const body = response.status === 200 ? await readJson(response) : undefined
      for (const record of Array.isArray(body?.data) ? body.data : []) {
        const found = await resolve(`${path}/${record.id}`, after)
        if (found) return found
      }
    }
    return undefined
  }
  return (await resolve('', segments)) ?? template.replace(/\{\w+\}/g, 'unknown_0')
}

const get = (path: string, token?: string) =>
  server.fetch(path, { headers: token ? { authorization: `Bearer ${token}` } : {} })

/** Calls an operation: reads on real records, writes on made-up ids or with an empty body. */
function call(op: Operation, token: string): Promise<Response> {
  if (op.method === 'GET') return get(`${paths.get(op.template)}${op.query}`, token)
  const path = op.template.replace(/\{\w+\}/g, 'unknown_0')
  const headers: Record<string, string> = { authorization: `Bearer ${token}` }
  if (op.method === 'DELETE') return server.fetch(path, { method: op.method, headers })
  headers['content-type'] = 'application/json'
  return server.fetch(path, { method: op.method, headers, body: '{}' })
}

describe('the scope table of the specification', () => {
  it('is the table of SPEC.md', () => {
    if (!existsSync(SPEC)) return
    const rows = [...readFileSync(SPEC, 'utf8').matchAll(/^\| (\w+) \| (yes|no) \| (yes|no) \|$/gm)]
    expect(rows.map(([, name, read, write]) => [name, read === 'yes', write === 'yes'])).toEqual(
      TABLE,
    )
    expect(SCOPES).toHaveLength(35)
  })

  it('is what the authorization server advertises', async () => {
    const metadata = await readJson(await server.fetch('/.well-known/oauth-authorization-server'))
    for (const scope of SCOPES) expect(metadata.scopes_supported).toContain(scope)
  })

  it.each(SCOPES)('%s guards a real operation', (scope) => {
    expect(operations.filter((op) => op.scopes.includes(scope)).length).toBeGreaterThan(0)
  })

  it('names a scope of the table on every operation that needs a token', () => {
    for (const op of operations.filter((o) => !o.anonymous)) {
      expect(op.scopes.length, `${op.method} ${op.template}`).toBeGreaterThan(0)
      for (const scope of op.scopes) expect(SCOPES, `${op.method} ${op.template}`).toContain(scope)
    }
  })

  it.each(SCOPES)(
    'a token holding only %s can do exactly the operations that scope allows',
    async (scope) => {
      const { accessToken } = await issue(server, { role: 'owner', scope })
      const wrong: string[] = []
      for (const op of operations) {
        const response = await call(op, accessToken)
        const allowed = op.scopes.includes(scope)
        const name = `${op.method} ${op.template} → ${response.status}`
        if (allowed || op.anonymous) {
          // Allowed, or public: never refused for the token. Reads of real records succeed
          // (a public read may also answer 404 for a record the public may not see).
          if (response.status === 401 || response.status === 403) wrong.push(`${name} refused`)
          else if (op.method === 'GET' && allowed && response.status !== 200)
            wrong.push(`${name} instead of 200`)
          else if (op.method === 'GET' && !allowed && ![200, 404].includes(response.status))
            wrong.push(`${name} instead of the public projection`)
          else if (op.method === 'GET' && !allowed && response.status === 200) {
            const visibility = response.headers.get('data-visibility')
            if (visibility === 'full') wrong.push(`${name} showed the full record`)
          }
        } else if (response.status !== 403) {
          wrong.push(`${name} instead of 403`)
        } else {
          const body = await readJson(response)
          if (body.code !== 'insufficient_scope') wrong.push(`${name} ${body.code}`)
        }
        await response.body?.cancel().catch(() => undefined)
      }
      expect(wrong).toEqual([])
    },
    60_000,
  )

  it('lets storage:write upload a file and nothing more: no listing, no reading', async () => {
    const { accessToken } = await issue(server, { role: 'owner', scope: 'storage:write' })
    const auth = { authorization: `Bearer ${accessToken}` }
    const upload = await server.fetch('/api/v1/storage/files?purpose=post_image&filename=a.txt', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'text/plain' },
      body: 'hello',
    })
    // A post image must be an image: the scope let the upload through to the type check.
    expect(upload.status).toBe(415)
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==',
      'base64',
    )
    const accepted = await server.fetch('/api/v1/storage/files?purpose=post_image&filename=a.png', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'image/png' },
      body: png,
    })
    expect(accepted.status).toBe(201)
    const file = await readJson(accepted)
    expect(file).toMatchObject({ object: 'file', content_type: 'image/png', size: png.length })
    for (const path of ['/api/v1/storage/files', `/api/v1/storage/files/${file.id}`])
      expect([404, 405]).toContain((await get(path, accessToken)).status)
    expect((await get('/api/v1/orders', accessToken)).status).toBe(403)
  })

  it('lets orders:read read orders and write nothing', async () => {
    const { accessToken } = await issue(server, { role: 'owner', scope: 'orders:read' })
    const orders = await readJson(await get('/api/v1/orders', accessToken))
    expect(orders.total_count).toBeGreaterThan(0)
    const order = await readJson(await get(`/api/v1/orders/${orders.data[0].id}`, accessToken))
    expect(order.object).toBe('order')
    const writes = operations.filter((op) => op.method !== 'GET' && !op.anonymous)
    expect(writes.length).toBeGreaterThan(50)
    for (const op of writes) expect((await call(op, accessToken)).status).toBe(403)
  })
})
