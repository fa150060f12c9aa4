import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { lessons } from '../../../src/api/catalogue/lessons.resource.js'
import { sections } from '../../../src/api/catalogue/sections.resource.js'
import { type Json, readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { issue } from '../../support/token-lifecycle.js'
import { apiClient, checkConventions } from './conventions.js'

const SCOPE = 'courses:read courses:write curriculum:read curriculum:write'
let server: TestServer
let call: ReturnType<typeof apiClient>
let courseId: string
let sectionId: string

async function post(path: string, json: unknown): Promise<Json> {
  const response = await call(path, { method: 'POST', json })
  expect(response.status, path).toBeLessThan(300)
  return readJson(response)
}

async function newCourse(publish = true): Promise<string> {
  const course = await post('/api/v1/courses', {
    title: 'Light',
    pricing_plans: [{ name: 'Free', type: 'free', price: { amount: 0, currency: 'USD' } }],
  })
  if (publish) await post(`/api/v1/courses/${course.id}/publish`, undefined)
  return course.id
}

const publish = (path: string) => call(path, { method: 'PATCH', json: { status: 'published' } })

beforeAll(async () => {
  server = await startTestServer()
  call = apiClient(server, (await issue(server, { role: 'editor', scope: SCOPE })).accessToken)
  courseId = await newCourse()
  sectionId = (await post(`/api/v1/courses/${courseId}/sections`, { title: 'Basics' })).id
  await publish(`/api/v1/sections/${sectionId}`)
})
afterAll(async () => {
  await server?.close()
})

const makePublic = async (id: string, token: string) => {
  const response = await apiClient(server, token)(
    `/api/v1/${id.startsWith('sec_') ? 'sections' : 'lessons'}/${id}`,
    {
      method: 'PATCH',
      json: { status: 'published' },
    },
  )
  expect(response.status).toBe(200)
}

describe('/api/v1/sections: the conventions', () => {
  checkConventions(() => server, {
    resource: sections,
    createPath: () => `/api/v1/courses/${courseId}/sections`,
    sample: (n) => ({ title: `Section ${n}` }),
    update: { title: 'Renamed' },
    invalid: { body: { status: 'gone' }, field: 'status' },
    deniedRole: 'teaching_assistant',
    makePublic,
  })
})

describe('/api/v1/lessons: the conventions', () => {
  checkConventions(() => server, {
    resource: lessons,
    createPath: () => `/api/v1/sections/${sectionId}/lessons`,
    sample: (n) => ({ title: `Lesson ${n}`, type: 'text', body: '<p>secret</p>' }),
    update: { title: 'Renamed' },
    invalid: { body: { type: 'hologram' }, field: 'type' },
    deniedRole: 'teaching_assistant',
    makePublic,
  })
})

describe('the curriculum: its own rules', () => {
  it('shows the public the outline of a published course and the content of free previews only', async () => {
    const course = await newCourse()
    const section = await post(`/api/v1/courses/${course}/sections`, { title: 'One' })
    await publish(`/api/v1/sections/${section.id}`)
    const lessonsPath = `/api/v1/sections/${section.id}/lessons`
    const preview = await post(lessonsPath, {
      title: 'Free',
      type: 'text',
      body: '<p>open</p>',
      is_free_preview: true,
    })
    const paid = await post(lessonsPath, { title: 'Paid', type: 'text', body: '<p>closed</p>' })
    const draft = await post(lessonsPath, { title: 'Draft', type: 'text' })
    await publish(`/api/v1/lessons/${preview.id}`)
    await publish(`/api/v1/lessons/${paid.id}`)
    const tree = await readJson(await server.fetch(`/api/v1/courses/${course}/curriculum`))
    const outline = tree.sections[0].lessons
    expect(outline.map((l: Json) => l.title)).toEqual(['Free', 'Paid'])
    expect(outline[0].body).toBe('<p>open</p>')
    expect(outline[1]).not.toHaveProperty('body')
    expect(outline[1]).not.toHaveProperty('status')
    expect((await readJson(await server.fetch(`/api/v1/lessons/${preview.id}`))).body).toBe(
      '<p>open</p>',
    )
    expect((await server.fetch(`/api/v1/lessons/${draft.id}`)).status).toBe(404)
    const listed = await readJson(await server.fetch(`${lessonsPath}?limit=100`))
    expect(listed.data.map((l: Json) => l.id)).toEqual([preview.id, paid.id])
    await post(`/api/v1/courses/${course}/unpublish`, undefined)
    expect((await server.fetch(`/api/v1/courses/${course}/curriculum`)).status).toBe(404)
    expect((await server.fetch(`/api/v1/lessons/${preview.id}`)).status).toBe(404)
    expect((await server.fetch(`/api/v1/sections/${section.id}`)).status).toBe(404)
    expect((await server.fetch(`${lessonsPath}`)).status).toBe(404)
    const full = await readJson(await call(`/api/v1/courses/${course}/curriculum`))
    expect(full.sections[0].lessons.map((l: Json) => l.status)).toEqual([
      'published',
      'published',
      'draft',
    ])
  })

  it('keeps positions dense when lessons are inserted, moved and moved between sections', async () => {
    const course = await newCourse(false)
    const one = await post(`/api/v1/courses/${course}/sections`, { title: 'One' })
    const two = await post(`/api/v1/courses/${course}/sections`, { title: 'Two' })
    const add = (title: string, extra: Json = {}) =>
      post(`/api/v1/sections/${one.id}/lessons`, { title, type: 'video', ...extra })
    const [a, b, c] = [await add('a'), await add('b'), await add('c')]
    expect([a.position, b.position, c.position]).toEqual([0, 1, 2])
    await add('first', { position: 0 })
    const titles = async (section: string) =>
      (await readJson(await call(`/api/v1/sections/${section}/lessons`))).data.map(
        (l: Json) => `${l.title}${l.position}`,
      )
    expect(await titles(one.id)).toEqual(['first0', 'a1', 'b2', 'c3'])
    await call(`/api/v1/lessons/${c.id}`, { method: 'PATCH', json: { position: 1 } })
    expect(await titles(one.id)).toEqual(['first0', 'c1', 'a2', 'b3'])
    const moved = await call(`/api/v1/lessons/${a.id}`, {
      method: 'PATCH',
      json: { section_id: two.id },
    })
    expect(await readJson(moved)).toMatchObject({ section_id: two.id, position: 0 })
    expect(await titles(one.id)).toEqual(['first0', 'c1', 'b2'])
    const foreign = await call(`/api/v1/lessons/${b.id}`, {
      method: 'PATCH',
      json: { section_id: sectionId },
    })
    expect(foreign.status).toBe(422)
    expect((await readJson(foreign)).errors[0].field).toBe('section_id')
  })

  it('reorders sections and lessons in one request, naming every one exactly once', async () => {
    const course = await newCourse(false)
    const one = await post(`/api/v1/courses/${course}/sections`, { title: 'One' })
    const two = await post(`/api/v1/courses/${course}/sections`, { title: 'Two' })
    const x = await post(`/api/v1/sections/${one.id}/lessons`, { title: 'x', type: 'text' })
    const y = await post(`/api/v1/sections/${one.id}/lessons`, { title: 'y', type: 'text' })
    const order = `/api/v1/courses/${course}/curriculum/order`
    const put = (json: unknown) => call(order, { method: 'PUT', json })
    const incomplete = await put({ sections: [{ id: two.id, lesson_ids: [y.id] }] })
    expect(incomplete.status).toBe(422)
    const tree = await readJson(
      await put({
        sections: [
          { id: two.id, lesson_ids: [y.id] },
          { id: one.id, lesson_ids: [x.id] },
        ],
      }),
    )
    expect(tree.sections.map((s: Json) => [s.title, s.lessons.map((l: Json) => l.title)])).toEqual([
      ['Two', ['y']],
      ['One', ['x']],
    ])
    const reader = await issue(server, {
      role: 'teaching_assistant',
      scope: 'curriculum:read curriculum:write',
    })
    const denied = await apiClient(server, reader.accessToken)(order, { method: 'PUT', json: {} })
    expect(denied.status).toBe(403)
  })

  it('duplicates a course with its curriculum as drafts; deleting a draft removes its curriculum', async () => {
    const course = await newCourse()
    const section = await post(`/api/v1/courses/${course}/sections`, { title: 'S' })
    await publish(`/api/v1/sections/${section.id}`)
    await post(`/api/v1/sections/${section.id}/lessons`, { title: 'L', type: 'text' })
    const copy = await post(`/api/v1/courses/${course}/duplicate`, undefined)
    const tree = await readJson(await call(`/api/v1/courses/${copy.id}/curriculum`))
    expect(tree.sections).toHaveLength(1)
    expect(tree.sections[0]).toMatchObject({ title: 'S', status: 'draft' })
    expect(tree.sections[0].lessons.map((l: Json) => l.title)).toEqual(['L'])
    expect(tree.sections[0].id).not.toBe(section.id)
    expect((await call(`/api/v1/courses/${copy.id}`, { method: 'DELETE' })).status).toBe(204)
    expect((await call(`/api/v1/sections/${tree.sections[0].id}`)).status).toBe(404)
  })
})
