import type { AppDeps } from '../../app-deps.js'
import type { Db } from '../../storage/schema.js'
import type { CommentTable } from '../../storage/tables/community.js'
import { LEARNERS } from './demo-content.js'

const DAY = 86_400_000
const HOUR = 3_600_000
const json = (value: unknown) => JSON.stringify(value)

const MAYA = 'usr_demo_maya'
const SAM = 'usr_demo_sam'
const FOUNDATIONS = 'crs_demo_photography_foundations'
const LIGHTROOM = 'crs_demo_lightroom_editing_masterclass'
const foundations = (lesson: string) => `lsn_demo_photography_foundations_${lesson}`
const lightroom = (lesson: string) => `lsn_demo_lightroom_editing_masterclass_${lesson}`
const student = (n: number) => `stu_demo_${String(n).padStart(2, '0')}`

/** One comment of a thread: who wrote it, what, how long ago; `to` is the index answered. */
interface DemoComment {
  readonly by: string
  readonly body: string
  readonly hoursAgo: number
  readonly to?: number
  readonly status?: CommentTable['status']
  readonly likes?: number
}

interface DemoThread {
  readonly target: { type: 'lesson' | 'post'; id: string; course?: string }
  /** The first comment opens the thread; the others reply (to the first unless `to`). */
  readonly comments: readonly DemoComment[]
}

/**
 * Threads on lessons of the published courses and on posts: questions Sam (teaching
 * assistant) or Maya (owner) answered, questions only other students answered or nobody
 * did (what `unanswered=true` finds), one hidden and one pending comment.
 */
const THREADS: readonly DemoThread[] = [
  {
    target: { type: 'lesson', id: foundations('1_1'), course: FOUNDATIONS },
    comments: [
      {
        by: student(3),
        body: '<p>Which shutter speed should I start with for handheld shots?</p>',
        hoursAgo: 12 * 24,
        likes: 3,
      },
      {
        by: SAM,
        body: '<p>A good rule: at least 1/focal length, so 1/50 s with a 50 mm lens.</p>',
        hoursAgo: 11 * 24,
        likes: 5,
      },
      { by: student(3), body: '<p>Thanks, that helps!</p>', hoursAgo: 11 * 24 - 3, to: 1 },
    ],
  },
  {
    target: { type: 'lesson', id: foundations('1_2'), course: FOUNDATIONS },
    comments: [
      {
        by: student(5),
        body: '<p>Is it worth shooting RAW on an entry-level camera?</p>',
        hoursAgo: 9 * 24,
      },
      {
        by: student(10),
        body: '<p>I think so, but I am not sure about the file sizes.</p>',
        hoursAgo: 8 * 24,
      },
    ],
  },
  {
    target: { type: 'lesson', id: foundations('2_1'), course: FOUNDATIONS },
    comments: [
      {
        by: student(12),
        body: '<p>How do I keep the horizon straight without a tripod?</p>',
        hoursAgo: 6 * 24,
        likes: 2,
      },
      {
        by: MAYA,
        body: '<p>Turn on the grid overlay in your viewfinder and level it with the top third.</p>',
        hoursAgo: 5 * 24,
        likes: 4,
      },
    ],
  },
  {
    target: { type: 'lesson', id: foundations('2_2'), course: FOUNDATIONS },
    comments: [
      {
        by: student(14),
        body: '<p>My photos come out too dark indoors. Should I raise the ISO or open the aperture first?</p>',
        hoursAgo: 3 * 24,
      },
    ],
  },
  {
    target: { type: 'lesson', id: foundations('3_1'), course: FOUNDATIONS },
    comments: [
      {
        by: student(16),
        body: '<p>Loved this lesson, the examples made it click.</p>',
        hoursAgo: 15 * 24,
        likes: 6,
      },
    ],
  },
  {
    target: { type: 'lesson', id: foundations('3_2'), course: FOUNDATIONS },
    comments: [
      {
        by: student(20),
        body: '<p>Can you recommend a lens for portraits under $300?</p>',
        hoursAgo: 2 * 24,
        status: 'pending',
      },
    ],
  },
  {
    target: { type: 'lesson', id: foundations('1_3'), course: FOUNDATIONS },
    comments: [
      {
        by: student(22),
        body: '<p>What is the difference between evaluative and spot metering?</p>',
        hoursAgo: 20 * 24,
        likes: 1,
      },
      {
        by: SAM,
        body: '<p>Evaluative reads the whole frame; spot reads a small circle in the centre.</p>',
        hoursAgo: 19 * 24,
      },
      {
        by: student(22),
        body: '<p>So spot metering is better for backlit portraits?</p>',
        hoursAgo: 18 * 24 + 5,
        to: 1,
      },
      {
        by: SAM,
        body: '<p>Exactly: meter on the face and let the background blow out.</p>',
        hoursAgo: 18 * 24,
        to: 2,
        likes: 2,
      },
    ],
  },
  {
    target: { type: 'lesson', id: foundations('4_1'), course: FOUNDATIONS },
    comments: [
      {
        by: student(7),
        body: '<p>Cheap presets at my site, click here!!!</p>',
        hoursAgo: 10 * 24,
        status: 'hidden',
      },
    ],
  },
  {
    target: { type: 'lesson', id: lightroom('1_1'), course: LIGHTROOM },
    comments: [
      {
        by: student(1),
        body: '<p>Should I import into one catalog or one per year?</p>',
        hoursAgo: 7 * 24,
      },
      {
        by: MAYA,
        body: '<p>One catalog for everything; use collections and keywords to organise.</p>',
        hoursAgo: 6 * 24,
        likes: 3,
      },
    ],
  },
  {
    target: { type: 'lesson', id: lightroom('2_1'), course: LIGHTROOM },
    comments: [
      {
        by: student(5),
        body: '<p>The dehaze slider makes my skies look grey. What am I doing wrong?</p>',
        hoursAgo: 24,
      },
    ],
  },
  {
    target: { type: 'lesson', id: lightroom('1_2'), course: LIGHTROOM },
    comments: [
      {
        by: student(9),
        body: '<p>Do smart previews work for exporting at full resolution?</p>',
        hoursAgo: 4 * 24,
      },
      {
        by: student(1),
        body: '<p>I had the same question, following.</p>',
        hoursAgo: 4 * 24 - 6,
      },
    ],
  },
  {
    target: { type: 'post', id: 'pst_demo_golden_hour_checklist' },
    comments: [
      {
        by: student(2),
        body: '<p>Printed the checklist and took it on my walk. Great tips!</p>',
        hoursAgo: 18 * 24,
        likes: 7,
      },
      {
        by: MAYA,
        body: '<p>So glad it helped. Share your favourite shot in the community!</p>',
        hoursAgo: 17 * 24,
        likes: 2,
      },
      {
        by: student(4),
        body: '<p>Same here, the white balance tip was new to me.</p>',
        hoursAgo: 16 * 24,
      },
    ],
  },
  {
    target: { type: 'post', id: 'pst_demo_golden_hour_checklist' },
    comments: [
      {
        by: student(6),
        body: '<p>Does the checklist work for blue hour too?</p>',
        hoursAgo: 5 * 24,
      },
    ],
  },
  {
    target: { type: 'post', id: 'pst_demo_welcome_to_brightframe' },
    comments: [
      { by: student(11), body: '<p>Excited to start learning here!</p>', hoursAgo: 55 * 24 },
      { by: SAM, body: '<p>Welcome aboard, Ada!</p>', hoursAgo: 54 * 24, likes: 1 },
    ],
  },
  {
    target: { type: 'post', id: 'pst_demo_welcome_to_brightframe' },
    comments: [
      {
        by: student(13),
        body: '<p>Will there be a course on film photography again?</p>',
        hoursAgo: 50 * 24,
      },
    ],
  },
  {
    target: { type: 'post', id: 'pst_demo_lightroom_presets_for_members' },
    comments: [
      {
        by: student(15),
        body: '<p>Do the presets work in Lightroom Mobile?</p>',
        hoursAgo: 8 * 24,
      },
      {
        by: MAYA,
        body: '<p>Yes: sync them through Lightroom CC and they show up on your phone.</p>',
        hoursAgo: 7 * 24,
      },
    ],
  },
]

async function seedComments(db: Db, now: number): Promise<void> {
  let n = 0
  for (const thread of THREADS) {
    const ids: string[] = []
    for (const [i, comment] of thread.comments.entries()) {
      n += 1
      const id = `cmt_demo_${String(n).padStart(2, '0')}`
      const at = now - comment.hoursAgo * HOUR
      const threadId = ids[0] ?? id
      await db
        .insertInto('comments')
        .values({
          id,
          target_type: thread.target.type,
          target_id: thread.target.id,
          course_id: thread.target.course ?? null,
          parent_id: i === 0 ? null : (ids[comment.to ?? 0] ?? null),
          thread_id: threadId,
          author_type: comment.by.startsWith('usr_') ? 'member' : 'student',
          author_id: comment.by,
          body: comment.body,
          status: comment.status ?? 'published',
          likes_count: comment.likes ?? 0,
          created_at: at,
          updated_at: at,
        })
        .execute()
      ids.push(id)
    }
  }
}

const NEWSLETTER_FIELDS = [
  { key: 'email', label: 'E-mail', type: 'email', required: true, options: [] },
  { key: 'name', label: 'First name', type: 'text', required: false, options: [] },
]

const PORTFOLIO_FIELDS = [
  { key: 'name', label: 'Your name', type: 'text', required: true, options: [] },
  { key: 'email', label: 'E-mail', type: 'email', required: true, options: [] },
  { key: 'portfolio_url', label: 'Portfolio URL', type: 'url', required: true, options: [] },
  {
    key: 'experience',
    label: 'Experience',
    type: 'select',
    required: true,
    options: ['beginner', 'intermediate', 'advanced', 'professional'],
  },
  {
    key: 'goals',
    label: 'What do you want from the review?',
    type: 'textarea',
    required: false,
    options: [],
  },
]

const SURVEY_FIELDS = [
  {
    key: 'topics',
    label: 'Which topics should we teach next?',
    type: 'multiselect',
    required: true,
    options: ['film', 'drone', 'video', 'studio lighting'],
  },
  {
    key: 'rating',
    label: 'How do you rate us (1-10)?',
    type: 'number',
    required: false,
    options: [],
  },
]

const UTM = [
  { source: 'instagram', medium: 'social', campaign: 'gear_checklist' },
  { source: 'google', medium: 'cpc', campaign: 'spring_sale' },
  { source: 'newsletter', medium: 'email', campaign: 'monthly_digest' },
  { source: 'youtube', medium: 'video', campaign: 'gear_checklist' },
] as const

/** A demo learner by number (1-based), for submissions matched to a student. */
function learner(n: number) {
  const found = LEARNERS[n - 1]
  if (!found) throw new Error(`no demo learner ${n}`)
  return found
}

async function seedForms(db: Db, now: number): Promise<void> {
  const forms = [
    {
      id: 'frm_demo_newsletter',
      title: 'Newsletter signup',
      type: 'newsletter' as const,
      status: 'active' as const,
      fields: NEWSLETTER_FIELDS,
      linked_to: { digital_product_id: 'dpr_demo_gear_checklist' },
      success_message: 'Thanks! Check your inbox for the Gear Checklist.',
      created: now - 120 * DAY,
    },
    {
      id: 'frm_demo_portfolio_review',
      title: 'Portfolio Review Application',
      type: 'application' as const,
      status: 'active' as const,
      fields: PORTFOLIO_FIELDS,
      linked_to: { page_id: 'pag_demo_about' },
      success_message: 'Application received. Maya reviews portfolios every Friday.',
      created: now - 70 * DAY,
    },
    {
      id: 'frm_demo_topics_survey',
      title: 'Next course topics survey (closed)',
      type: 'survey' as const,
      status: 'closed' as const,
      fields: SURVEY_FIELDS,
      linked_to: null,
      success_message: 'Thanks for voting!',
      created: now - 200 * DAY,
    },
  ]
  for (const form of forms)
    await db
      .insertInto('forms')
      .values({
        id: form.id,
        title: form.title,
        type: form.type,
        status: form.status,
        fields: json(form.fields),
        linked_to: form.linked_to ? json(form.linked_to) : null,
        success_message: form.success_message,
        created_at: form.created,
        updated_at: form.created,
      })
      .execute()

  // 18 newsletter signups over the last 60 days; every third one from a demo learner.
  for (let i = 0; i < 18; i += 1) {
    const matched = i % 3 === 0 ? learner(i + 2) : undefined
    const first = matched?.name.split(' ')[0] ?? ['Alex', 'Sam', 'Robin', 'Kai'][i % 4]
    const email = matched?.email ?? `reader${i + 1}@example.com`
    const at = now - (60 - i * 3) * DAY - (i % 5) * HOUR
    await insertSubmission(db, {
      id: `fsub_demo_newsletter_${String(i + 1).padStart(2, '0')}`,
      form_id: 'frm_demo_newsletter',
      email,
      name: i % 4 === 3 ? null : (first ?? null),
      student_id: matched?.id ?? null,
      answers: i % 4 === 3 ? { email } : { email, name: first },
      source_url:
        i % 2 === 0
          ? 'https://brightframe.example/'
          : 'https://brightframe.example/blog/golden-hour-checklist',
      utm: UTM[i % UTM.length] ?? null,
      at,
    })
  }

  const applicants = [
    { who: learner(3), experience: 'intermediate', goals: 'Get ready for my first exhibition.' },
    { who: undefined, experience: 'beginner', goals: '' },
    { who: learner(12), experience: 'advanced', goals: 'Feedback on my street series.' },
    { who: undefined, experience: 'professional', goals: 'Refresh my wedding portfolio.' },
    { who: undefined, experience: 'intermediate', goals: 'Choose my best 20 portraits.' },
  ] as const
  for (const [i, applicant] of applicants.entries()) {
    const name = applicant.who?.name ?? ['Noor Haddad', 'Tom Becker', 'Lucia Rossi'][i % 3]
    const email =
      applicant.who?.email ?? `${(name ?? 'applicant').toLowerCase().replace(' ', '.')}@example.com`
    const answers: Record<string, unknown> = {
      name,
      email,
      portfolio_url: `https://portfolio.example/${(name ?? 'applicant').toLowerCase().replace(' ', '-')}`,
      experience: applicant.experience,
      ...(applicant.goals && { goals: applicant.goals }),
    }
    await insertSubmission(db, {
      id: `fsub_demo_portfolio_review_${i + 1}`,
      form_id: 'frm_demo_portfolio_review',
      email,
      name: name ?? null,
      student_id: applicant.who?.id ?? null,
      answers,
      source_url: 'https://brightframe.example/about',
      utm: null,
      at: now - (40 - i * 8) * DAY,
    })
  }
}

async function insertSubmission(
  db: Db,
  s: {
    id: string
    form_id: string
    email: string
    name: string | null
    student_id: string | null
    answers: Record<string, unknown>
    source_url: string
    utm: Record<string, string> | null
    at: number
  },
): Promise<void> {
  await db
    .insertInto('form_submissions')
    .values({
      id: s.id,
      form_id: s.form_id,
      email: s.email,
      name: s.name,
      student_id: s.student_id,
      answers: json(s.answers),
      source_url: s.source_url,
      utm: s.utm ? json(s.utm) : null,
      submitted_at: s.at,
      created_at: s.at,
      updated_at: s.at,
    })
    .execute()
}

/** Comments with unanswered questions, and the forms with their submissions (DOMAIN.md §4.7). */
export async function seedCommunity(db: Db, now: number, _deps: AppDeps): Promise<void> {
  await seedComments(db, now)
  await seedForms(db, now)
}
