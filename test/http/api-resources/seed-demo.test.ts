import { describe, expect, it } from 'vitest'
import { catalogue, createCatalogue, demoTime, loadDemo } from '../../../src/api/demo/demo.js'
import { useDemoServer } from '../../support/demo.js'
import { type Json, readJson } from '../../support/http.js'
import { issue } from '../../support/token-lifecycle.js'
import { apiClient } from './conventions.js'

const server = useDemoServer()

describe('portico seed demo', () => {
  it('loads once: a second run leaves the database alone', async () => {
    expect(await loadDemo(server().deps)).toBe(false)
  })

  it('shows the public the published public catalogue, the school and its appearance', async () => {
    const list = await readJson(await server().fetch('/api/v1/courses?sort=title'))
    expect(list.data.map((c: Json) => c.slug)).toEqual([
      'lightroom-editing-masterclass',
      'night-sky-astrophotography',
      'photography-foundations',
      'smartphone-photography-in-60-minutes',
    ])
    expect((await server().fetch('/api/v1/courses/portrait-lighting')).status).toBe(200)
    expect((await server().fetch('/api/v1/courses/street-photography-essentials')).status).toBe(404)
    const school = await readJson(await server().fetch('/api/v1/school'))
    expect(school).toMatchObject({
      name: 'Brightframe Photography School',
      tagline: 'Learn to see light',
    })
    expect((await readJson(await server().fetch('/api/v1/appearance'))).colors.primary).toBe(
      '#1F6FEB',
    )
    const tree = await readJson(
      await server().fetch('/api/v1/courses/photography-foundations/curriculum'),
    )
    expect(tree.sections).toHaveLength(4)
    expect(tree.sections[0].lessons.some((l: Json) => l.is_free_preview && l.body)).toBe(true)
  })

  it('has a team with every role and learners in more than one page, in every state', async () => {
    const { accessToken } = await issue(server(), {
      scope: 'members:read students:read posts:read pages:read lecturers:read',
    })
    const call = apiClient(server(), accessToken)
    const team = await readJson(await call('/api/v1/members?limit=100&q=brightframe'))
    expect(new Set(team.data.map((m: Json) => m.role))).toEqual(
      new Set(['owner', 'admin', 'editor', 'lecturer', 'teaching_assistant']),
    )
    expect(new Set(team.data.map((m: Json) => m.status))).toEqual(
      new Set(['active', 'invited', 'suspended']),
    )
    const learners = await readJson(await call('/api/v1/students'))
    expect(learners).toMatchObject({ has_more: true, total_count: 40 })
    const enrollments = await readJson(await call('/api/v1/enrollments?limit=100'))
    expect(new Set(enrollments.data.map((e: Json) => e.status))).toEqual(
      new Set(['active', 'completed', 'expired', 'revoked']),
    )
    const posts = await readJson(await call('/api/v1/posts?limit=100'))
    expect(new Set(posts.data.map((p: Json) => p.status))).toEqual(
      new Set(['draft', 'scheduled', 'published', 'archived']),
    )
    expect((await readJson(await server().fetch('/api/v1/lecturers'))).total_count).toBe(3)
  })

  it('created every catalogue record through the resources’ own operations', async () => {
    // The loader goes through each resource's create operation, so loading is the check that
    // every record passes a client's validation; here every one of them reads back.
    const records = catalogue(server().deps, demoTime(Date.now()))
    const collections = new Set(records.map((r) => r.collection))
    const { accessToken } = await issue(server(), {
      role: 'owner',
      scope: [
        'courses:read curriculum:read lecturers:read posts:read pages:read coupons:read',
        'digital_products:read events:read membership_plans:read',
      ].join(' '),
    })
    const call = apiClient(server(), accessToken)
    expect(collections.size).toBe(12)
    for (const record of records) {
      const response = await call(`/api/v1/${record.collection}/${record.id}`)
      expect(response.status, `${record.collection}/${record.id}`).toBe(200)
    }
  })

  it('fails loudly when the API refuses a demo record', async () => {
    const time = demoTime(Date.now())
    const refused = createCatalogue(server().deps, time, [
      {
        collection: 'courses',
        id: 'crs_demo_refused',
        day: -1,
        // A free plan that costs money: the courses resource refuses it (422).
        body: {
          title: 'Refused',
          pricing_plans: [{ name: 'Free', type: 'free', price: { amount: 100, currency: 'USD' } }],
        },
      },
    ])
    await expect(refused).rejects.toThrow(/422.*validation_failed.*pricing_plans/)
    const taken = createCatalogue(server().deps, time, [
      {
        collection: 'lecturers',
        id: 'lec_demo_again',
        day: -1,
        body: { name: 'Maya', slug: 'maya-chen' },
      },
    ])
    await expect(taken).rejects.toThrow(/slug/)
  })
})
