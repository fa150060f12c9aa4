import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { postCategories } from '../../../src/api/catalogue/categories.js'
import { readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { issue } from '../../support/token-lifecycle.js'
import { apiClient, checkConventions } from './conventions.js'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server?.close()
})

describe('/api/v1/post_categories: the conventions', () => {
  checkConventions(() => server, {
    resource: postCategories,
    sample: (n) => ({ name: `Category ${n}` }),
    update: { description: '<p>Stories</p>' },
    invalid: { body: { slug: 'Not A Slug' }, field: 'slug' },
    deniedRole: 'lecturer',
  })
})

describe('post categories: their own rules', () => {
  it('files posts under a category, filters by it, and refuses deleting a category in use', async () => {
    const { accessToken } = await issue(server, { role: 'editor', scope: 'posts:read posts:write' })
    const call = apiClient(server, accessToken)
    const category = await readJson(
      await call('/api/v1/post_categories', { method: 'POST', json: { name: 'Field notes' } }),
    )
    expect(category).toMatchObject({ object: 'post_category', slug: 'field-notes' })

    const unknown = await call('/api/v1/posts', {
      method: 'POST',
      json: { title: 'Lost', body: '<p>x</p>', category_id: 'pcat_nope' },
    })
    expect(unknown.status).toBe(422)
    expect((await readJson(unknown)).errors[0]).toMatchObject({
      field: 'category_id',
      code: 'not_found',
    })

    const post = await readJson(
      await call('/api/v1/posts', {
        method: 'POST',
        json: { title: 'Filed', body: '<p>x</p>', category_id: category.id },
      }),
    )
    const filtered = await readJson(await call(`/api/v1/posts?category_id=${category.id}`))
    expect(filtered.data.map((p: { id: string }) => p.id)).toEqual([post.id])

    const refused = await call(`/api/v1/post_categories/${category.id}`, { method: 'DELETE' })
    expect(refused.status).toBe(409)
    await call(`/api/v1/posts/${post.id}`, { method: 'PATCH', json: { category_id: null } })
    const deleted = await call(`/api/v1/post_categories/${category.id}`, { method: 'DELETE' })
    expect(deleted.status).toBe(204)
  })

  it('lists the categories to anyone, in their order', async () => {
    const list = await readJson(await server.fetch('/api/v1/post_categories'))
    expect(list.object).toBe('list')
    const positions = list.data.map((c: { position: number }) => c.position)
    expect(positions).toEqual([...positions].sort((a: number, b: number) => a - b))
  })
})
