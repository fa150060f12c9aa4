import { describe, expect, it } from 'vitest'
import { seedDemo } from '../../../src/api/seed/seed-demo.js'
import { useDemoServer } from '../../support/demo.js'
import { type Json, readJson } from '../../support/http.js'
import { issue } from '../../support/token-lifecycle.js'
import { apiClient } from './conventions.js'

const server = useDemoServer()

describe('portico seed demo', () => {
  it('loads once: a second run leaves the database alone', async () => {
    expect(await seedDemo(server().deps)).toBe(false)
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
})
