import type { Expression, ExpressionBuilder, SqlBool } from 'kysely'
import type { Db } from '../../storage/schema.js'
import {
  boolean,
  enumeration,
  html,
  instant,
  integer,
  type Row,
  reference,
  text,
} from '../framework/fields.js'
import { defineResource, type RowOf } from '../framework/resource.js'
import { type ResourceDb, visibilityOf } from '../framework/store.js'
import { structure } from '../framework/structures.js'
import { shown, type View, view } from '../framework/views.js'
import { notWrittenByApi } from '../people/owners.js'
import { posts } from './posts.resource.js'

type Eb = ExpressionBuilder<Record<string, Row>, string>

/** A member the view computes from the row and what `enrich` loaded (never written). */
const computed = <S>(member: View<S>, description: string) =>
  structure(member.schema, () => undefined, { public: true, readOnly: true, description })

/**
 * A published comment by a team member below the listed comment (`comments`): anywhere
 * in its thread for a top-level comment, directly below it for a reply.
 */
function staffReplyExists(eb: Eb): Expression<SqlBool> {
  return eb.exists(
    eb
      .selectFrom('comments as reply')
      .select('reply.id')
      .where('reply.author_type', '=', 'member')
      .where('reply.status', '=', 'published')
      .where((r) =>
        r.or([
          r.and([
            r('comments.parent_id', 'is', null),
            r('reply.thread_id', '=', r.ref('comments.id')),
            r('reply.id', '<>', r.ref('comments.id')),
          ]),
          r('reply.parent_id', '=', r.ref('comments.id')),
        ]),
      ),
  )
}

/** A student's top-level comment that no team member has answered yet. */
function unansweredQuestion(eb: Eb): Expression<SqlBool> {
  return eb.and([
    eb('comments.parent_id', 'is', null),
    eb('comments.author_type', '=', 'student'),
    eb.not(staffReplyExists(eb)),
  ])
}

/** Who wrote a comment, as every view shows it. */
interface Author {
  name: string | null
  avatar_url: string | null
  role: string | null
}

/** The author `enrich` loaded (none when no author was found). */
const authorOf = (row: RowOf<'comments'>) => row.author as Author | null | undefined

const targetType = enumeration(['lesson', 'post'], { public: true, readOnly: true, filter: true })
const targetId = text({ public: true, readOnly: true, max: 64, filter: true })
const authorType = enumeration(['student', 'member'], {
  public: true,
  readOnly: true,
  filter: true,
})

/** The lesson or post commented on, with its title (loaded by `enrich`). */
const target = view<RowOf<'comments'>>(
  {
    type: shown.field(targetType, { from: (row) => row.target_type }),
    id: shown.field(targetId, { from: (row) => row.target_id }),
    title: shown.string({ nullable: true, from: (row) => row.target_title }),
  },
  { required: ['type', 'id', 'title'] },
)

/** Who wrote a comment: the author `enrich` loaded, and the id in the full view only. */
const author = view<{ row: RowOf<'comments'>; full: boolean }>(
  {
    type: shown.field(authorType, { from: ({ row }) => row.author_type }),
    id: shown.string({
      description: 'Full view only: the stu_… or usr_… id',
      from: ({ row, full }) => (full ? row.author_id : undefined),
    }),
    name: shown.string({ nullable: true, from: ({ row }) => authorOf(row)?.name }),
    avatar_url: shown.string({ nullable: true, from: ({ row }) => authorOf(row)?.avatar_url }),
    role: shown.string({
      nullable: true,
      description: 'student, or the member’s team role',
      from: ({ row }) => authorOf(row)?.role,
    }),
  },
  { required: ['type', 'name', 'avatar_url', 'role'] },
)

/** Loads target titles, authors, reply counts and staff replies for a page of comments. */
async function enrich(db: ResourceDb, rows: RowOf<'comments'>[], full: boolean): Promise<void> {
  const idsOf = (key: 'target_id' | 'author_id', where: (row: RowOf<'comments'>) => boolean) => [
    ...new Set(rows.filter(where).map((row) => row[key])),
  ]
  const lessonIds = idsOf('target_id', (r) => r.target_type === 'lesson')
  const postIds = idsOf('target_id', (r) => r.target_type === 'post')
  const studentIds = idsOf('author_id', (r) => r.author_type === 'student')
  const memberIds = idsOf('author_id', (r) => r.author_type === 'member')
  const ids = rows.map((row) => row.id)

  const titles = new Map<string, string>()
  for (const [table, targets] of [
    ['lessons', lessonIds],
    ['posts', postIds],
  ] as const) {
    if (targets.length === 0) continue
    const found = await db
      .selectFrom(table)
      .select(['id', 'title'])
      .where('id', 'in', targets)
      .execute()
    for (const row of found) titles.set(row.id, row.title)
  }

  const authors = new Map<string, Author>()
  if (studentIds.length > 0) {
    // The tables by their declared types (a ResourceDb is a Db), so the joined columns are typed.
    const typed: Db = db
    const found = await typed
      .selectFrom('students')
      .leftJoin('users', 'users.id', 'students.user_id')
      .select(['students.id as id', 'students.name as name', 'users.avatar_url as avatar_url'])
      .where('students.id', 'in', studentIds)
      .execute()
    for (const row of found)
      authors.set(`student ${row.id}`, {
        name: row.name,
        avatar_url: row.avatar_url ?? null,
        role: 'student',
      })
  }
  if (memberIds.length > 0) {
    const found = await db
      .selectFrom('users')
      .select(['id', 'name', 'avatar_url', 'role'])
      .where('id', 'in', memberIds)
      .execute()
    for (const row of found)
      authors.set(`member ${row.id}`, {
        name: row.name,
        avatar_url: row.avatar_url ?? null,
        role: row.role,
      })
  }

  // The public counts only what it can see; the team every reply not deleted.
  const counts = await db
    .selectFrom('comments')
    .select((eb) => ['parent_id', eb.fn.countAll().as('n')])
    .where('parent_id', 'in', ids)
    .where('status', full ? '<>' : '=', full ? 'deleted' : 'published')
    .groupBy('parent_id')
    .execute()
  const replies = new Map(counts.map((row) => [row.parent_id, Number(row.n)]))

  const staff = await db
    .selectFrom('comments')
    .select(['id', 'thread_id', 'parent_id'])
    .where('author_type', '=', 'member')
    .where('status', '=', 'published')
    .where((eb) => eb.or([eb('thread_id', 'in', ids), eb('parent_id', 'in', ids)]))
    .execute()

  for (const row of rows) {
    const id = row.id
    row.target_title = titles.get(row.target_id) ?? null
    row.author = authors.get(`${row.author_type} ${row.author_id}`) ?? null
    row.replies_count = replies.get(id) ?? 0
    row.has_staff_reply = staff.some((reply) =>
      row.parent_id === null ? reply.thread_id === id && reply.id !== id : reply.parent_id === id,
    )
  }
}

/**
 * Comments on lessons and posts (DOMAIN.md §4.3.16), read only: there is no comments:write
 * scope. Threaded: `parent_id` is the comment answered, `thread_id` the top-level comment.
 * The public sees published comments on public posts whose blog post it may read in full
 * (published, `access: public`), never lesson comments, and no reply below a comment it
 * cannot see. `unanswered=true` lists students' top-level questions without a staff reply.
 */
export const comments = defineResource({
  object: 'comment',
  collection: 'comments',
  table: 'comments',
  idPrefix: 'cmt',
  summary: 'Comments on lessons and posts (read only)',
  scopes: { read: 'comments:read' },
  writeRoles: [],
  ownership: notWrittenByApi('Comments are written by their authors on the school’s site'),
  operations: ['list', 'get'],
  public: {
    get: { status: ['published'], target_type: ['post'] },
    where: (now) => (eb) =>
      eb.and([
        eb(
          'comments.target_id',
          'in',
          eb
            .selectFrom('posts')
            .select('posts.id')
            .where(visibilityOf(posts, 'get', now))
            .where('posts.access', '=', 'public'),
        ),
        // A reply shows only while its parent and the thread's first comment are published.
        eb.or([
          eb('comments.parent_id', 'is', null),
          eb.and([
            eb(
              'comments.parent_id',
              'in',
              eb
                .selectFrom('comments as parent')
                .select('parent.id')
                .where('parent.status', '=', 'published'),
            ),
            eb(
              'comments.thread_id',
              'in',
              eb
                .selectFrom('comments as root')
                .select('root.id')
                .where('root.status', '=', 'published'),
            ),
          ]),
        ]),
      ]),
  },
  fields: {
    target_type: targetType,
    target_id: targetId,
    course_id: reference('crs', { public: true, readOnly: true, nullable: true, filter: true }),
    parent_id: reference('cmt', { public: true, readOnly: true, nullable: true, filter: true }),
    thread_id: reference('cmt', {
      public: true,
      readOnly: true,
      filter: true,
      description: 'The id of the top-level comment of the thread (its own for a top-level one)',
    }),
    author_type: authorType,
    author_id: text({ readOnly: true, max: 64, description: 'A stu_… or usr_… id' }),
    body: html({ public: true, readOnly: true }),
    status: enumeration(['published', 'pending', 'hidden', 'deleted'], {
      public: true,
      readOnly: true,
      filter: true,
    }),
    likes_count: integer({ public: true, readOnly: true }),
    target: computed(target, 'The lesson or post commented on, with its title'),
    author: computed(author, 'Who wrote the comment, as shown beside it'),
    replies_count: integer({
      public: true,
      readOnly: true,
      description:
        'Replies directly below it: the published ones in the public projection, all but deleted ones in the full view',
    }),
    has_staff_reply: boolean({
      public: true,
      readOnly: true,
      description: 'A team member replied (published) in the thread, or directly below a reply',
    }),
  },
  filters: {
    unanswered: {
      field: boolean(),
      reads: ['parent_id', 'author_type', 'thread_id', 'status'],
      description:
        'true: top-level comments by students with no published reply by a team member in their thread; false: every other comment',
      where: (eb, _op, value) =>
        value === 1 ? unansweredQuestion(eb) : eb.not(unansweredQuestion(eb)),
    },
    created_at: {
      field: instant(),
      reads: ['created_at'],
      description: 'When the comment was written (ranges with [gte], [lt] …)',
      where: (eb, op, value) => eb('comments.created_at', op, value),
    },
  },
  enrich: (db, rows, full) => enrich(db, rows, full),
  computed: (row, full) => ({
    target: target.show(row),
    author: author.show({ row, full }),
    replies_count: row.replies_count ?? 0,
    has_staff_reply: row.has_staff_reply ?? false,
  }),
})
