import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '../../../src/storage/schema.js'
import { createTestClock } from '../../support/grants.js'
import { jsonInit, readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { type Issued, issue } from '../../support/token-lifecycle.js'

/**
 * A record's serialised answer is kept while its row stays the same (ViewMemo): these show
 * that what the answer depends on still changes it, whoever changed the row and when.
 */
const clock = createTestClock(Date.UTC(2031, 0, 1, 12))
let server: TestServer
let owner: Issued
beforeAll(async () => {
  server = await startTestServer({ clock })
  owner = await issue(server, {
    role: 'owner',
    scope: 'courses:read courses:write posts:read posts:write account:read',
  })
})
afterAll(async () => {
  await server?.close()
})

const bearer = () => ({ authorization: `Bearer ${owner.accessToken}` })
const get = (path: string) => server.fetch(path, { headers: bearer() })

describe('answers kept while the row is the same', () => {
  it('answers a row changed behind the API (updated_at untouched) anew', async () => {
    const created = await server.fetch(
      '/api/v1/courses',
      jsonInit(
        {
          title: 'Kept',
          pricing_plans: [
            { name: 'Full access', type: 'one_time', price: { amount: 4900, currency: 'USD' } },
          ],
        },
        bearer(),
      ),
    )
    expect(created.status).toBe(201)
    const { id } = (await created.json()) as { id: string }
    const first = await get(`/api/v1/courses/${id}`)
    const again = await get(`/api/v1/courses/${id}`)
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'))
    expect(await again.text()).toBe(await first.text())

    const db = server.deps.database.db as unknown as Db
    await db
      .updateTable('courses')
      .set({ subtitle: 'from elsewhere' })
      .where('id', '=', id)
      .execute()
    const changed = await get(`/api/v1/courses/${id}`)
    expect(changed.headers.get('etag')).not.toBe(first.headers.get('etag'))
    expect(((await readJson(changed)) as { subtitle: string }).subtitle).toBe('from elsewhere')
    const only = await get(`/api/v1/courses/${id}?fields=subtitle`)
    const projection = (await readJson(only)) as Record<string, unknown>
    expect(projection).toMatchObject({ id, subtitle: 'from elsewhere' })
    expect(projection).not.toHaveProperty('title')
    expect(only.headers.get('etag')).not.toBe(changed.headers.get('etag'))
  })

  it('answers a record whose answer reads the clock anew as time passes', async () => {
    const created = await server.fetch(
      '/api/v1/posts',
      jsonInit({ title: 'Soon', body: '<p>Soon</p>' }, bearer()),
    )
    const post = (await readJson(created)) as { id: string }
    expect(created.status, JSON.stringify(post)).toBe(201)
    // Scheduled a minute ahead: it reads as published once the minute has passed.
    const db = server.deps.database.db as unknown as Db
    await db
      .updateTable('posts')
      .set({ status: 'scheduled', published_at: clock.now() + 60_000 })
      .where('id', '=', post.id)
      .execute()
    const before = await get(`/api/v1/posts/${post.id}`)
    expect(((await readJson(before)) as { status: string }).status).toBe('scheduled')
    clock.advance(120_000)
    const after = await get(`/api/v1/posts/${post.id}`)
    expect(((await readJson(after)) as { status: string }).status).toBe('published')
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'))
  })

  it('answers the account anew once the person changed, whoever changed them', async () => {
    const first = await get('/api/v1/account')
    const again = await get('/api/v1/account')
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'))
    const db = server.deps.database.db as unknown as Db
    await db
      .updateTable('users')
      .set({ bio: 'changed elsewhere' })
      .where('id', '=', owner.person.user.id)
      .execute()
    const changed = await get('/api/v1/account')
    expect(((await readJson(changed)) as { bio: string }).bio).toBe('changed elsewhere')
    expect(changed.headers.get('etag')).not.toBe(first.headers.get('etag'))
  })
})
