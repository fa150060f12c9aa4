import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { comments } from '../../../src/api/community/comments.resource.js'
import type { CommentTable } from '../../../src/storage/tables/community.js'
import { useDemoServer } from '../../support/demo.js'
import { type Json, readJson } from '../../support/http.js'
import { startTestServer, type TestServer } from '../../support/server.js'
import { issue } from '../../support/token-lifecycle.js'
import { apiClient, checkConventions } from './conventions.js'

const DAY = 86_400_000
let server: TestServer
let read: ReturnType<typeof apiClient>
let staffId: string
let staffName: string
let sequence = 0

const db = () => server.deps.database.db

async function insertPost(slug: string, status: string, access: string): Promise<string> {
  const id = `pst_${slug.replaceAll('-', '_')}`
  const now = Date.now()
  await db()
    .insertInto('posts')
    .values({
      id,
      title: `Post ${slug}`,
      slug,
      subtitle: null,
      excerpt: null,
      body: '<p>Body</p>',
      cover_image_url: null,
      status: status as 'published',
      access: access as 'public',
      tags: '[]',
      author_lecturer_id: null,
      seo: null,
      comments_enabled: 1,
      published_at: status === 'draft' ? null : now - DAY,
      created_at: now - 2 * DAY,
      updated_at: now - 2 * DAY,
    })
    .execute()
  return id
}

async function insertStudent(n: number): Promise<string> {
  const id = `stu_commenter_${n}`
  await db()
    .insertInto('students')
    .values({
      id,
      email: `commenter${n}@example.com`,
      name: `Commenter ${n}`,
      user_id: null,
      phone: null,
      locale: null,
      timezone: null,
      status: 'active',
      tags: '[]',
      marketing_opt_in: 0,
      source: 'api',
      notes: null,
      created_at: Date.now(),
      updated_at: Date.now(),
    })
    .execute()
  return id
}

/** Inserts one comment as a seed would: a reply joins its parent's thread. */
async function insertComment(
  values: Partial<CommentTable> & Pick<CommentTable, 'target_type' | 'target_id' | 'author_id'>,
): Promise<string> {
  sequence += 1
  const id = `cmt_test_${String(sequence).padStart(4, '0')}`
  let threadId = id
  if (values.parent_id) {
    const parent = await db()
      .selectFrom('comments')
      .select('thread_id')
      .where('id', '=', values.parent_id)
      .executeTakeFirstOrThrow()
    threadId = parent.thread_id
  }
  const at = values.created_at ?? Date.now() - DAY + sequence * 1000
  await db()
    .insertInto('comments')
    .values({
      course_id: null,
      parent_id: null,
      body: `<p>Comment ${sequence}</p>`,
      status: 'published',
      likes_count: 0,
      author_type: values.author_id.startsWith('stu_') ? 'student' : 'member',
      ...values,
      id,
      thread_id: threadId,
      created_at: at,
      updated_at: at,
    })
    .execute()
  return id
}

let publicPost: string
let registeredPost: string
let draftPost: string
let lessonId: string
let courseId: string
let studentA: string
let studentB: string

beforeAll(async () => {
  server = await startTestServer()
  const reader = await issue(server, { role: 'teaching_assistant', scope: 'comments:read' })
  read = apiClient(server, reader.accessToken)
  staffId = reader.person.user.id
  staffName = reader.person.user.name
  publicPost = await insertPost('public-post', 'published', 'public')
  registeredPost = await insertPost('members-post', 'published', 'registered')
  draftPost = await insertPost('draft-post', 'draft', 'public')
  studentA = await insertStudent(1)
  studentB = await insertStudent(2)
  const owner = await issue(server, {
    role: 'owner',
    scope: 'courses:write curriculum:write courses:read curriculum:read',
  })
  const write = apiClient(server, owner.accessToken)
  const course = await readJson(
    await write('/api/v1/courses', {
      method: 'POST',
      json: {
        title: 'Commented course',
        pricing_plans: [{ name: 'Free', type: 'free', price: { amount: 0, currency: 'USD' } }],
      },
    }),
  )
  courseId = course.id
  const section = await readJson(
    await write(`/api/v1/courses/${courseId}/sections`, {
      method: 'POST',
      json: { title: 'Part 1' },
    }),
  )
  const lesson = await readJson(
    await write(`/api/v1/sections/${section.id}/lessons`, {
      method: 'POST',
      json: { title: 'Exposure', type: 'text' },
    }),
  )
  lessonId = lesson.id
  if (!lessonId) throw new Error(JSON.stringify([course, section, lesson]))
})
afterAll(async () => {
  await server?.close()
})

describe('/api/v1/comments: the conventions', () => {
  checkConventions(() => server, {
    resource: comments,
    fixture: (_server, n, publish) =>
      insertComment({
        target_type: 'post',
        target_id: publicPost,
        author_id: studentA,
        body: `<p>Fixture ${n}</p>`,
        status: publish ? 'published' : 'pending',
      }),
  })
})

const listIds = async (query: string, call = read): Promise<string[]> => {
  const response = await call(`/api/v1/comments?limit=100&${query}`)
  expect(response.status, query).toBe(200)
  return (await readJson(response)).data.map((c: Json) => c.id)
}

describe('/api/v1/comments: threads and the unanswered filter', () => {
  it('finds student questions without a staff reply, whoever else answered', async () => {
    const post = await insertPost('unanswered-post', 'published', 'public')
    const on = { target_type: 'post' as const, target_id: post }
    const alone = await insertComment({ ...on, author_id: studentA })
    const studentsOnly = await insertComment({ ...on, author_id: studentA })
    await insertComment({ ...on, author_id: studentB, parent_id: studentsOnly })
    const answered = await insertComment({ ...on, author_id: studentA })
    const staffReply = await insertComment({ ...on, author_id: staffId, parent_id: answered })
    const deep = await insertComment({ ...on, author_id: studentB })
    const followUp = await insertComment({ ...on, author_id: studentA, parent_id: deep })
    await insertComment({ ...on, author_id: staffId, parent_id: followUp })
    const hiddenAnswer = await insertComment({ ...on, author_id: studentA })
    await insertComment({
      ...on,
      author_id: staffId,
      parent_id: hiddenAnswer,
      status: 'hidden',
    })
    const announcement = await insertComment({ ...on, author_id: staffId })

    const unanswered = await listIds(`target_id=${post}&unanswered=true`)
    expect(new Set(unanswered)).toEqual(new Set([alone, studentsOnly, hiddenAnswer]))
    const rest = await listIds(`target_id=${post}&unanswered=false`)
    expect(rest).toContain(answered)
    expect(rest).toContain(deep)
    expect(rest).toContain(announcement)
    expect(rest).toContain(staffReply)
    expect(rest).not.toContain(alone)
    expect(rest.length + unanswered.length).toBe((await listIds(`target_id=${post}`)).length)

    const body = await readJson(await read(`/api/v1/comments/${answered}`))
    expect(body).toMatchObject({
      thread_id: answered,
      parent_id: null,
      has_staff_reply: true,
      replies_count: 1,
      target: { type: 'post', id: post, title: 'Post unanswered-post' },
      author: { type: 'student', id: studentA, name: 'Commenter 1', role: 'student' },
    })
    const reply = await readJson(await read(`/api/v1/comments/${staffReply}`))
    expect(reply).toMatchObject({
      thread_id: answered,
      parent_id: answered,
      author: { type: 'member', id: staffId, name: staffName, role: 'teaching_assistant' },
    })
    expect((await readJson(await read(`/api/v1/comments/${alone}`))).has_staff_reply).toBe(false)
    expect((await readJson(await read(`/api/v1/comments/${hiddenAnswer}`))).has_staff_reply).toBe(
      false,
    )
  })

  it('filters by target, course, author type, status and creation time', async () => {
    const old = Date.now() - 30 * DAY
    const onLesson = await insertComment({
      target_type: 'lesson',
      target_id: lessonId,
      course_id: courseId,
      author_id: studentB,
      created_at: old,
    })
    expect(await listIds('target_type=lesson')).toEqual([onLesson])
    expect(await listIds(`course_id=${courseId}`)).toEqual([onLesson])
    const lesson = await readJson(await read(`/api/v1/comments/${onLesson}`))
    expect(lesson.target).toEqual({ type: 'lesson', id: lessonId, title: 'Exposure' })
    const before = new Date(old + 1000).toISOString()
    expect(await listIds(`created_at[lt]=${before}`)).toEqual([onLesson])
    expect(await listIds(`created_at[gte]=${before}`)).not.toContain(onLesson)
    const members = await listIds('author_type=member')
    expect(members.length).toBeGreaterThan(0)
    for (const id of members)
      expect((await readJson(await read(`/api/v1/comments/${id}`))).author.type).toBe('member')
    const response = await read('/api/v1/comments?unanswered=maybe')
    expect(response.status).toBe(400)
    expect((await readJson(response)).errors[0].field).toBe('unanswered')
  })
})

describe('/api/v1/comments: the public projection', () => {
  it('shows published comments on public posts only', async () => {
    const visible = await insertComment({
      target_type: 'post',
      target_id: publicPost,
      author_id: studentA,
    })
    const visibleReply = await insertComment({
      target_type: 'post',
      target_id: publicPost,
      author_id: staffId,
      parent_id: visible,
    })
    const hidden = await insertComment({
      target_type: 'post',
      target_id: publicPost,
      author_id: studentA,
      status: 'hidden',
    })
    const underHidden = await insertComment({
      target_type: 'post',
      target_id: publicPost,
      author_id: studentB,
      parent_id: hidden,
    })
    const pending = await insertComment({
      target_type: 'post',
      target_id: publicPost,
      author_id: studentA,
      status: 'pending',
    })
    const onRegistered = await insertComment({
      target_type: 'post',
      target_id: registeredPost,
      author_id: studentA,
    })
    const onDraft = await insertComment({
      target_type: 'post',
      target_id: draftPost,
      author_id: studentA,
    })
    const onLesson = await insertComment({
      target_type: 'lesson',
      target_id: lessonId,
      course_id: courseId,
      author_id: studentA,
    })
    const anonymous = apiClient(server)
    const other = await issue(server, { role: 'owner', scope: 'account:read' })
    for (const call of [anonymous, apiClient(server, other.accessToken)]) {
      const list = await call('/api/v1/comments?limit=100')
      expect(list.headers.get('data-visibility')).toBe('public')
      const ids = (await readJson(list)).data.map((c: Json) => c.id)
      expect(ids).toContain(visible)
      expect(ids).toContain(visibleReply)
      for (const id of [hidden, underHidden, pending, onRegistered, onDraft, onLesson]) {
        expect(ids).not.toContain(id)
        const one = await call(`/api/v1/comments/${id}`)
        expect(one.status, id).toBe(404)
      }
      const one = await readJson(await call(`/api/v1/comments/${visibleReply}`))
      expect(one.author).toEqual({
        type: 'member',
        name: staffName,
        avatar_url: null,
        role: 'teaching_assistant',
      })
      expect(one).not.toHaveProperty('author_id')
      // Filters cannot reach past the projection.
      expect(await listIds('status=hidden', call)).toEqual([])
      expect(await listIds('target_type=lesson', call)).toEqual([])
    }
    // The team sees everything.
    for (const id of [hidden, underHidden, pending, onRegistered, onDraft, onLesson])
      expect((await read(`/api/v1/comments/${id}`)).status).toBe(200)
  })

  it('hides a whole thread from the public once its first comment is hidden', async () => {
    const on = { target_type: 'post' as const, target_id: publicPost }
    const root = await insertComment({ ...on, author_id: studentA, status: 'hidden' })
    // A published reply to a published reply, deep in the hidden thread.
    const reply = await insertComment({ ...on, author_id: studentB, parent_id: root })
    await db()
      .updateTable('comments')
      .set({ status: 'published' })
      .where('id', '=', reply)
      .execute()
    const deeper = await insertComment({ ...on, author_id: staffId, parent_id: reply })
    const anonymous = apiClient(server)
    for (const id of [root, reply, deeper])
      expect((await anonymous(`/api/v1/comments/${id}`)).status).toBe(404)
    const listed = await listIds(`target_id=${publicPost}`, anonymous)
    for (const id of [root, reply, deeper]) expect(listed).not.toContain(id)
  })

  it('serves no comments at all without comments:read beyond the projection', async () => {
    const response = await apiClient(server)('/api/v1/comments?unanswered=true')
    expect(response.status).toBe(200)
    for (const comment of (await readJson(response)).data) {
      expect(comment.status).toBe('published')
      expect(comment.target.type).toBe('post')
    }
  })
})

describe('/api/v1/comments: the demo school', () => {
  const demo = useDemoServer()

  it('has threads on lessons and posts, unanswered questions, staff replies, hidden and pending', async () => {
    const { accessToken } = await issue(demo(), { role: 'owner', scope: 'comments:read' })
    const call = apiClient(demo(), accessToken)
    const all = await readJson(await call('/api/v1/comments?limit=100'))
    expect(all.total_count).toBeGreaterThanOrEqual(25)
    const byStatus = (status: string) => all.data.filter((c: Json) => c.status === status)
    expect(byStatus('hidden')).toHaveLength(1)
    expect(byStatus('pending')).toHaveLength(1)
    expect(new Set(all.data.map((c: Json) => c.target.type))).toEqual(new Set(['lesson', 'post']))
    const staff = all.data.filter((c: Json) => c.author.type === 'member')
    expect(new Set(staff.map((c: Json) => c.author.name))).toEqual(
      new Set(['Sam Okafor', 'Maya Chen']),
    )
    expect(new Set(staff.map((c: Json) => c.author.role))).toEqual(
      new Set(['teaching_assistant', 'owner']),
    )
    for (const comment of all.data) {
      expect(comment.target.title).toEqual(expect.any(String))
      expect(comment.author.name).toEqual(expect.any(String))
      if (comment.parent_id) expect(comment.thread_id).not.toBe(comment.id)
      else expect(comment.thread_id).toBe(comment.id)
    }
    const unanswered = await readJson(await call('/api/v1/comments?unanswered=true&limit=100'))
    expect(unanswered.total_count).toBeGreaterThanOrEqual(4)
    for (const comment of unanswered.data) {
      expect(comment.parent_id).toBeNull()
      expect(comment.author.type).toBe('student')
      expect(comment.has_staff_reply).toBe(false)
    }
    const answered = all.data.filter(
      (c: Json) => c.parent_id === null && c.author.type === 'student' && c.has_staff_reply,
    )
    expect(answered.length).toBeGreaterThanOrEqual(4)
    expect(unanswered.total_count + answered.length).toBe(
      all.data.filter((c: Json) => c.parent_id === null && c.author.type === 'student').length,
    )

    // The public sees the comments on the two public published posts, nothing else.
    const open = await readJson(await demo().fetch('/api/v1/comments?limit=100'))
    expect(open.total_count).toBeGreaterThan(0)
    expect(new Set(open.data.map((c: Json) => c.target.id))).toEqual(
      new Set(['pst_demo_golden_hour_checklist', 'pst_demo_welcome_to_brightframe']),
    )
  })
})
