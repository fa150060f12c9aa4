import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { courseCategories } from '../../../src/api/catalogue/categories.js'
import { courses } from '../../../src/api/catalogue/courses.resource.js'
import { type Json, readJson } from '../../support/http.js'
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

const SCOPE = 'courses:read courses:write'
const oneTime = (amount: number, extra: Json = {}) => ({
  name: 'Full access',
  type: 'one_time',
  price: { amount, currency: 'USD' },
  ...extra,
})
const sample = (n: number) => ({ title: `Course ${n}`, pricing_plans: [oneTime(4900)] })

async function writer() {
  const { accessToken } = await issue(server, { role: 'editor', scope: SCOPE })
  return apiClient(server, accessToken)
}

describe('/api/v1/courses: the conventions', () => {
  checkConventions(() => server, {
    resource: courses,
    sample,
    update: { subtitle: 'Now with more light' },
    invalid: { body: { level: 'expert' }, field: 'level' },
    deniedRole: 'teaching_assistant',
    async makePublic(id, token) {
      const response = await apiClient(server, token)(`/api/v1/courses/${id}/publish`, {
        method: 'POST',
      })
      expect(response.status).toBe(200)
    },
  })
})

describe('/api/v1/course_categories: the conventions', () => {
  checkConventions(() => server, {
    resource: courseCategories,
    sample: (n) => ({ name: `Category ${n}` }),
    update: { description: '<p>All about light</p>' },
    invalid: { body: { name: '' }, field: 'name' },
    deniedRole: 'lecturer',
  })
})

describe('/api/v1/courses: its own rules', () => {
  it('makes a unique slug from the title and reads a course by slug', async () => {
    const call = await writer()
    const a = await readJson(
      await call('/api/v1/courses', {
        method: 'POST',
        json: { title: 'Night Sky & Stars', pricing_plans: [oneTime(100)] },
      }),
    )
    const b = await readJson(
      await call('/api/v1/courses', {
        method: 'POST',
        json: { title: 'Night Sky & Stars', pricing_plans: [oneTime(100)] },
      }),
    )
    expect(a.slug).toBe('night-sky-stars')
    expect(b.slug).toBe('night-sky-stars-2')
    expect((await readJson(await call('/api/v1/courses/night-sky-stars-2'))).id).toBe(b.id)
    const taken = await call(`/api/v1/courses/${b.id}`, { method: 'PATCH', json: { slug: a.slug } })
    expect(taken.status).toBe(422)
    expect((await readJson(taken)).errors[0]).toMatchObject({ field: 'slug', code: 'taken' })
  })

  it('checks pricing plans: money in minor units, one default, price fitting the type', async () => {
    const call = await writer()
    const cases: Array<[unknown, string]> = [
      [[], 'pricing_plans'],
      [[oneTime(49.5)], 'pricing_plans[0].price.amount'],
      [
        [{ ...oneTime(0), type: 'free', price: { amount: 100, currency: 'USD' } }],
        'pricing_plans[0].price.amount',
      ],
      [[oneTime(100, { type: 'installments' })], 'pricing_plans[0].installments_count'],
      [[oneTime(100, { is_default: true }), oneTime(200, { is_default: true })], 'pricing_plans'],
      [
        [oneTime(100, { price: { amount: 100, currency: 'usd' } })],
        'pricing_plans[0].price.currency',
      ],
    ]
    for (const [plans, field] of cases) {
      const response = await call('/api/v1/courses', {
        method: 'POST',
        json: { title: 'X', pricing_plans: plans },
      })
      expect(response.status, field).toBe(422)
      expect((await readJson(response)).errors.map((e: Json) => e.field)).toContain(field)
    }
    const ok = await readJson(await call('/api/v1/courses', { method: 'POST', json: sample(1) }))
    expect(ok.pricing_plans[0]).toMatchObject({
      is_default: true,
      available: true,
      access: { type: 'lifetime' },
    })
    expect(ok.pricing_plans[0].id).toMatch(/^pln_/)
  })

  it('publishes, unpublishes and archives; anonymous callers follow the state', async () => {
    const call = await writer()
    const course = await readJson(
      await call('/api/v1/courses', { method: 'POST', json: sample(2) }),
    )
    const path = `/api/v1/courses/${course.id}`
    expect(course.status).toBe('draft')
    expect((await server.fetch(path)).status).toBe(404)
    const published = await readJson(await call(`${path}/publish`, { method: 'POST' }))
    expect(published.status).toBe('published')
    expect(published.published_at).toMatch(/Z$/)
    expect((await server.fetch(path)).status).toBe(200)
    expect((await readJson(await call(`${path}/unpublish`, { method: 'POST' }))).status).toBe(
      'draft',
    )
    expect((await server.fetch(path)).status).toBe(404)
    expect((await readJson(await call(`${path}/archive`, { method: 'POST' }))).status).toBe(
      'archived',
    )
    expect((await call(`${path}/unpublish`, { method: 'POST' })).status).toBe(409)
  })

  it('refuses to publish a course without an available plan', async () => {
    const call = await writer()
    const course = await readJson(
      await call('/api/v1/courses', {
        method: 'POST',
        json: { title: 'Hidden', pricing_plans: [oneTime(100, { available: false })] },
      }),
    )
    const response = await call(`/api/v1/courses/${course.id}/publish`, { method: 'POST' })
    expect(response.status).toBe(422)
    expect((await readJson(response)).errors[0].field).toBe('pricing_plans')
  })

  it('lists only published public courses to the public, with available plans only', async () => {
    const call = await writer()
    const make = async (visibility: string) => {
      const course = await readJson(
        await call('/api/v1/courses', {
          method: 'POST',
          json: {
            ...sample(3),
            visibility,
            pricing_plans: [oneTime(100), oneTime(200, { available: false })],
          },
        }),
      )
      await call(`/api/v1/courses/${course.id}/publish`, { method: 'POST' })
      return course.id as string
    }
    const [open, unlisted, hidden] = [
      await make('public'),
      await make('unlisted'),
      await make('private'),
    ]
    const list = await readJson(await server.fetch('/api/v1/courses?limit=100'))
    const ids = list.data.map((c: Json) => c.id)
    expect(ids).toContain(open)
    expect(ids).not.toContain(unlisted)
    expect(ids).not.toContain(hidden)
    expect((await server.fetch(`/api/v1/courses/${unlisted}`)).status).toBe(200)
    expect((await server.fetch(`/api/v1/courses/${hidden}`)).status).toBe(404)
    const one = await readJson(await server.fetch(`/api/v1/courses/${open}`))
    expect(one.pricing_plans).toHaveLength(1)
    expect(one).not.toHaveProperty('status')
  })

  it('filters and sorts on declared fields only', async () => {
    const call = await writer()
    await call('/api/v1/courses', {
      method: 'POST',
      json: { ...sample(4), title: 'Aardvark', level: 'advanced' },
    })
    const advanced = await readJson(await call('/api/v1/courses?level=advanced&sort=title'))
    expect(advanced.data.map((c: Json) => c.level)).toEqual(advanced.data.map(() => 'advanced'))
    const byTitle = await readJson(await call('/api/v1/courses?sort=title&limit=100'))
    const titles = byTitle.data.map((c: Json) => c.title)
    expect(titles[0]).toBe('Aardvark')
    const found = await readJson(await call('/api/v1/courses?q=aardv'))
    expect(found.data.map((c: Json) => c.title)).toEqual(['Aardvark'])
  })

  it('duplicates as a draft and deletes only drafts (409 with a hint to archive)', async () => {
    const call = await writer()
    const course = await readJson(
      await call('/api/v1/courses', { method: 'POST', json: sample(5) }),
    )
    await call(`/api/v1/courses/${course.id}/publish`, { method: 'POST' })
    const copy = await call(`/api/v1/courses/${course.id}/duplicate`, { method: 'POST' })
    expect(copy.status).toBe(201)
    const duplicate = await readJson(copy)
    expect(duplicate).toMatchObject({
      title: 'Course 5 (copy)',
      status: 'draft',
      published_at: null,
    })
    expect(copy.headers.get('location')).toBe(`${server.issuer}/api/v1/courses/${duplicate.id}`)
    const refused = await call(`/api/v1/courses/${course.id}`, { method: 'DELETE' })
    expect(refused.status).toBe(409)
    expect((await readJson(refused)).detail).toMatch(/archive/)
    expect((await call(`/api/v1/courses/${duplicate.id}`, { method: 'DELETE' })).status).toBe(204)
    expect((await call(`/api/v1/courses/${duplicate.id}`)).status).toBe(404)
  })

  it('files courses under existing categories only; a used category is not deleted', async () => {
    const call = await writer()
    const missing = await call('/api/v1/courses', {
      method: 'POST',
      json: { ...sample(6), category_id: 'cat_nope' },
    })
    expect((await readJson(missing)).errors[0]).toMatchObject({
      field: 'category_id',
      code: 'not_found',
    })
    const category = await readJson(
      await call('/api/v1/course_categories', { method: 'POST', json: { name: 'Editing' } }),
    )
    expect(category.slug).toBe('editing')
    const course = await readJson(
      await call('/api/v1/courses', {
        method: 'POST',
        json: { ...sample(7), category_id: category.id },
      }),
    )
    const filtered = await readJson(await call(`/api/v1/courses?category_id=${category.id}`))
    expect(filtered.data.map((c: Json) => c.id)).toEqual([course.id])
    expect(
      (await call(`/api/v1/course_categories/${category.id}`, { method: 'DELETE' })).status,
    ).toBe(409)
  })
})
