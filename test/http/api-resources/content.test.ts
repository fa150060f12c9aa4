import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { lecturers } from '../../../src/api/catalogue/lecturers.resource.js'
import { posts } from '../../../src/api/community/posts.resource.js'
import { pages } from '../../../src/api/school/pages.resource.js'
import { createTestClock } from '../../support/grants.js'
import { type Json, readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { issue } from '../../support/token-lifecycle.js'
import { apiClient, checkConventions } from './conventions.js'

const clock = createTestClock()
let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ clock })
})
afterAll(async () => {
  await server?.close()
})

const publishAction = (collection: string) => async (id: string, token: string) => {
  const response = await apiClient(server, token)(`/api/v1/${collection}/${id}/publish`, {
    method: 'POST',
  })
  expect(response.status).toBe(200)
}

async function writer(scope: string) {
  return apiClient(server, (await issue(server, { role: 'editor', scope })).accessToken)
}

describe('/api/v1/lecturers: the conventions', () => {
  checkConventions(() => server, {
    resource: lecturers,
    sample: (n) => ({ name: `Lecturer ${n}`, visible: false, email: `l${n}@example.com` }),
    update: { headline: 'Photographer' },
    invalid: { body: { email: 'not-an-address' }, field: 'email' },
    deniedRole: 'teaching_assistant',
    async makePublic(id, token) {
      const response = await apiClient(server, token)(`/api/v1/lecturers/${id}`, {
        method: 'PATCH',
        json: { visible: true },
      })
      expect(response.status).toBe(200)
    },
  })
})

describe('/api/v1/posts: the conventions', () => {
  checkConventions(() => server, {
    resource: posts,
    sample: (n) => ({ title: `Post ${n}`, body: '<p>Members only</p>', access: 'registered' }),
    update: { excerpt: 'In short' },
    invalid: { body: { access: 'everyone' }, field: 'access' },
    deniedRole: 'lecturer',
    makePublic: publishAction('posts'),
  })
})

describe('/api/v1/pages: the conventions', () => {
  checkConventions(() => server, {
    resource: pages,
    sample: (n) => ({
      title: `Page ${n}`,
      blocks: [{ type: 'rich_text', props: { html: '<p>Hi</p>' } }],
    }),
    update: { show_in_navigation: true },
    invalid: { body: { blocks: [{ type: 'marquee' }] }, field: 'blocks[0].type' },
    deniedRole: 'lecturer',
    makePublic: publishAction('pages'),
  })
})

describe('lecturers, posts and pages: their own rules', () => {
  it('links a lecturer only to a team member', async () => {
    const call = await writer('lecturers:read lecturers:write')
    const learner = await issue(server, { role: 'student', scope: 'account:read' })
    const refused = await call('/api/v1/lecturers', {
      method: 'POST',
      json: { name: 'Guest', member_id: learner.person.user.id },
    })
    expect((await readJson(refused)).errors[0]).toMatchObject({
      field: 'member_id',
      code: 'not_found',
    })
    const member = await issue(server, { role: 'lecturer', scope: 'account:read' })
    const linked = await call('/api/v1/lecturers', {
      method: 'POST',
      json: { name: 'Maya Chen', member_id: member.person.user.id },
    })
    expect(await readJson(linked)).toMatchObject({
      slug: 'maya-chen',
      member_id: member.person.user.id,
    })
    const anonymous = await readJson(await server.fetch('/api/v1/lecturers/maya-chen'))
    expect(anonymous).not.toHaveProperty('member_id')
    expect(anonymous).not.toHaveProperty('email')
  })

  it('schedules a post, which the public sees only once its time has come', async () => {
    const call = await writer('posts:read posts:write')
    const post = await readJson(
      await call('/api/v1/posts', { method: 'POST', json: { title: 'Soon', body: '<p>Open</p>' } }),
    )
    const at = new Date(clock.now() + 3_600_000).toISOString()
    const scheduled = await readJson(
      await call(`/api/v1/posts/${post.id}/publish`, { method: 'POST', json: { at } }),
    )
    expect(scheduled).toMatchObject({
      status: 'scheduled',
      published_at: at.replace(/\.\d{3}Z$/, 'Z'),
    })
    expect((await server.fetch('/api/v1/posts/soon')).status).toBe(404)
    clock.advance(3_600_000)
    const open = await readJson(await server.fetch('/api/v1/posts/soon'))
    expect(open).toMatchObject({ title: 'Soon', body: '<p>Open</p>', locked: false })
    // The access token expired meanwhile: a fresh one.
    const later = await writer('posts:read posts:write')
    expect((await readJson(await later(`/api/v1/posts/${post.id}`))).status).toBe('published')
    const bad = await later(`/api/v1/posts/${post.id}/publish`, {
      method: 'POST',
      json: { when: 'now' },
    })
    expect((await readJson(bad)).errors[0]).toMatchObject({ field: 'when', code: 'unknown_field' })
  })

  it('shows the public a locked teaser of a post that is not public', async () => {
    const call = await writer('posts:read posts:write')
    const post = await readJson(
      await call('/api/v1/posts', {
        method: 'POST',
        json: { title: 'Paid tips', body: '<p>Secret</p>', access: 'paid', excerpt: 'Tips' },
      }),
    )
    await call(`/api/v1/posts/${post.id}/publish`, { method: 'POST' })
    const teaser = await readJson(await server.fetch(`/api/v1/posts/${post.id}`))
    expect(teaser).toMatchObject({ excerpt: 'Tips', locked: true })
    expect(teaser).not.toHaveProperty('body')
  })

  it('keeps one home page, never deleted, and sanitises HTML inside blocks', async () => {
    const call = await writer('pages:read pages:write')
    const home = await readJson(
      await call('/api/v1/pages', {
        method: 'POST',
        json: {
          title: 'Home',
          type: 'home',
          blocks: [{ type: 'html', props: { html: '<b>x</b><script>y</script>' } }],
        },
      }),
    )
    expect(home.blocks[0].props.html).toBe('<b>x</b>')
    const second = await call('/api/v1/pages', {
      method: 'POST',
      json: { title: 'Home 2', type: 'home', blocks: [] },
    })
    expect((await readJson(second)).errors[0]).toMatchObject({ field: 'type', code: 'taken' })
    const deleted = await call(`/api/v1/pages/${home.id}`, { method: 'DELETE' })
    expect(deleted.status).toBe(409)
    const list = await readJson(await call('/api/v1/pages?type=home'))
    expect(list.data.map((p: Json) => p.id)).toEqual([home.id])
  })
})
