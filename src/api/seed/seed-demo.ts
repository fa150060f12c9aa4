import type { AppDeps } from '../../app-deps.js'
import { ensureSchoolAndOwner, SCHOOL_ID } from '../../people/first-start.js'
import { hashPassword } from '../../platform/passwords.js'
import type { Db } from '../../storage/schema.js'
import type { ResourceDb } from '../framework/store.js'
import {
  CATEGORIES,
  COURSES,
  DEMO_PASSWORD,
  LEARNERS,
  LECTURERS,
  LESSON_TYPES,
  PAGES,
  POST_CATEGORIES,
  POSTS,
  TEAM,
} from './demo-content.js'
import { seedCommerce } from './seed-commerce.js'
import { seedCommunity } from './seed-community.js'
import { seedEvents } from './seed-events.js'
import { seedMemberships } from './seed-memberships.js'
import { seedStorage } from './seed-storage.js'

const DAY = 86_400_000
const json = (value: unknown) => JSON.stringify(value)
const slugId = (prefix: string, slug: string) => `${prefix}_demo_${slug.replaceAll('-', '_')}`

/**
 * Loads the demo school into an empty database: the same records every time, dated relative
 * to `now`. Returns false (and changes nothing) when the school already has courses.
 */
export async function seedDemo(deps: AppDeps): Promise<boolean> {
  const db = deps.database.db
  if (await db.selectFrom('courses').select('id').limit(1).executeTakeFirst()) return false
  const now = deps.clock.now()
  const passwordHash = await hashPassword(DEMO_PASSWORD)
  await seedPeople(db, now, passwordHash)
  await ensureSchoolAndOwner(deps)
  await db.transaction().execute(async (trx) => {
    await seedSchool(trx, now)
    await seedCatalogue(trx, now)
    await seedLearners(trx, now)
    await seedWriting(trx, now)
    await seedStorage(trx, now, deps)
    await seedEvents(trx, now, deps)
    await seedMemberships(trx, now, deps)
    await seedCommunity(trx, now, deps)
    // Last: orders refer to everything that can be bought, and coupons count their orders.
    await seedCommerce(trx, now, deps)
  })
  return true
}

async function seedPeople(db: Db, now: number, passwordHash: string): Promise<void> {
  for (const [i, member] of TEAM.entries()) {
    await db
      .insertInto('users')
      .values({
        id: member.id,
        email: member.email,
        name: member.name,
        password_hash: passwordHash,
        role: member.role,
        locale: 'en',
        timezone: 'America/New_York',
        avatar_url: null,
        bio: null,
        notification_preferences: null,
        created_at: now - (400 - i * 30) * DAY,
        updated_at: now - (400 - i * 30) * DAY,
        disabled_at: member.status === 'suspended' ? now - 20 * DAY : null,
      })
      .execute()
    // The team columns are the members resource's own (schema.ts UserTeamColumns).
    await (db as unknown as ResourceDb)
      .updateTable('users')
      .set({
        status: member.status,
        invited_at: member.status === 'invited' ? now - 2 * DAY : null,
        invited_by: member.status === 'invited' ? 'usr_demo_maya' : null,
      })
      .where('id', '=', member.id)
      .execute()
  }
}

async function seedSchool(db: Db, now: number): Promise<void> {
  await db
    .updateTable('school')
    .set({
      name: 'Brightframe Photography School',
      tagline: 'Learn to see light',
      description:
        '<p>Online photography courses for every level, from your first camera to your first exhibition.</p>',
      locale: 'en',
      timezone: 'America/New_York',
      currency: 'USD',
      country: 'US',
      contact_email: 'hello@brightframe.example',
      support_email: 'support@brightframe.example',
      social_links: json({
        website: 'https://brightframe.example',
        instagram: 'https://instagram.com/brightframe.example',
      }),
      seo_defaults: json({
        title: 'Brightframe Photography School',
        description: 'Learn to see light',
      }),
      legal: json({ terms_page_id: 'pag_demo_terms', company_name: 'Brightframe LLC' }),
      signup: json({ open: true, require_email_verification: true }),
      features: json({ comments: true, reviews: true, certificates: true }),
      updated_at: now,
    })
    .where('id', '=', SCHOOL_ID)
    .execute()
  await db
    .insertInto('appearance')
    .values({
      id: 'appearance',
      logo_url: 'https://brightframe.example/logo.png',
      logo_dark_url: null,
      favicon_url: 'https://brightframe.example/favicon.png',
      colors: json({
        primary: '#1F6FEB',
        accent: '#F59E0B',
        background: '#FFFFFF',
        surface: '#F6F8FA',
        text: '#1F2328',
        link: '#0969DA',
      }),
      typography: json({ heading_font: 'playfair', body_font: 'inter' }),
      color_scheme: 'light',
      navigation: json([
        { label: 'Courses', target: 'courses' },
        { label: 'Blog', target: 'blog' },
        { label: 'Events', target: 'events' },
        { label: 'Membership', target: 'plans' },
        { label: 'About', url: 'https://brightframe.example/about' },
      ]),
      footer: json({ text: '© Brightframe Photography School' }),
      course_player_theme: 'theater',
      homepage_layout: 'standard',
      custom_css: null,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute()
}

async function seedCatalogue(db: Db, now: number): Promise<void> {
  for (const [i, lecturer] of LECTURERS.entries())
    await db
      .insertInto('lecturers')
      .values({
        id: lecturer.id,
        slug: lecturer.slug,
        name: lecturer.name,
        headline: lecturer.headline,
        bio: `<p>${lecturer.name} teaches at Brightframe.</p>`,
        avatar_url: null,
        links: null,
        visible: lecturer.visible,
        featured: lecturer.featured,
        position: i,
        email: null,
        member_id: lecturer.member,
        created_at: now - 300 * DAY,
        updated_at: now - 300 * DAY,
      })
      .execute()
  for (const [i, name] of CATEGORIES.entries())
    await db
      .insertInto('course_categories')
      .values({
        id: slugId('cat', name.toLowerCase()),
        name,
        slug: name.toLowerCase(),
        description: null,
        position: i,
        created_at: now - 300 * DAY,
        updated_at: now - 300 * DAY,
      })
      .execute()
  for (const [c, course] of COURSES.entries()) {
    const courseId = slugId('crs', course.slug)
    const created = now - (200 - c * 20) * DAY
    await db
      .insertInto('courses')
      .values({
        id: courseId,
        title: course.title,
        slug: course.slug,
        subtitle: null,
        description: `<p>${course.title}: a Brightframe course.</p>`,
        cover_image_url: null,
        promo_video_url: null,
        status: course.status,
        visibility: course.visibility,
        featured: course.featured ? 1 : 0,
        category_id: slugId('cat', course.category.toLowerCase()),
        tags: json([]),
        level: c === 0 ? 'beginner' : c === 3 ? 'advanced' : 'all_levels',
        language: 'en',
        pricing_plans: json(course.plans),
        enrollment: json({
          open: course.status === 'published',
          ...(course.startsInDays && {
            starts_at: new Date(now + course.startsInDays * DAY)
              .toISOString()
              .replace(/\.\d{3}Z$/, 'Z'),
          }),
        }),
        certificate_enabled: c === 0 ? 1 : 0,
        comments_enabled: 1,
        reviews_enabled: 1,
        seo: null,
        published_at: course.status === 'draft' ? null : created + DAY,
        created_at: created,
        updated_at: created,
      })
      .execute()
    await seedCurriculum(db, course.slug, courseId, course.sections, created, c === 4)
  }
}

async function seedCurriculum(
  db: Db,
  slug: string,
  courseId: string,
  sectionCount: number,
  created: number,
  partlyDraft: boolean,
): Promise<void> {
  for (let s = 0; s < sectionCount; s += 1) {
    const sectionId = `${slugId('sec', slug)}_${s + 1}`
    await db
      .insertInto('sections')
      .values({
        id: sectionId,
        course_id: courseId,
        title: `Part ${s + 1}`,
        description: null,
        position: s,
        status: partlyDraft && s === sectionCount - 1 ? 'draft' : 'published',
        drip: json({ type: 'none' }),
        created_at: created,
        updated_at: created,
      })
      .execute()
    const lessonCount = 3 + ((s + slug.length) % 3)
    for (let l = 0; l < lessonCount; l += 1) {
      const type = LESSON_TYPES[(s + l) % LESSON_TYPES.length] ?? 'text'
      await db
        .insertInto('lessons')
        .values({
          id: `${slugId('lsn', slug)}_${s + 1}_${l + 1}`,
          course_id: courseId,
          section_id: sectionId,
          title: `Lesson ${s + 1}.${l + 1}`,
          type,
          position: l,
          status: 'published',
          is_free_preview: s === 0 && l < (slug.length % 2) + 1 ? 1 : 0,
          duration_seconds: type === 'video' ? 300 + l * 60 : null,
          body: `<p>Notes for lesson ${s + 1}.${l + 1}.</p>`,
          video:
            type === 'video'
              ? json({
                  provider: 'youtube',
                  url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
                  duration_seconds: 300 + l * 60,
                })
              : null,
          attachments: json([]),
          embed_url: null,
          comments_enabled: 1,
          completion_rule: type === 'quiz' ? 'quiz_pass' : 'view',
          created_at: created,
          updated_at: created,
        })
        .execute()
    }
  }
}

/** Enrollments in every state, most in Photography Foundations, with some progress. */
async function seedLearners(db: Db, now: number): Promise<void> {
  const STATES = ['active', 'active', 'completed', 'expired', 'revoked'] as const
  /**
   * How learner `i` came to a course. Purchases (each learner's become one order in the
   * commerce seed) grow over the quarter, so revenue trends upward: early learners mostly came
   * over from the school's previous platform (`import`). The archived course's learners are
   * imported too, some Lightroom learners have it through the Studio Pass, one has a comp.
   */
  const sourceOf = (i: number, course: (typeof COURSES)[number]): string => {
    if (course.plans[0]?.type === 'free') return 'free'
    if (course.status === 'archived') return 'import'
    if (course.slug === 'lightroom-editing-masterclass' && i % 8 === 4) return 'membership'
    if (i === 5) return 'manual'
    const buys = i < 12 ? i % 4 === 0 : i < 24 ? i % 3 === 0 : i % 5 !== 2
    return buys ? 'purchase' : 'import'
  }
  for (const [i, learner] of LEARNERS.entries()) {
    const joined = now - (90 - i * 2) * DAY
    await db
      .insertInto('students')
      .values({
        id: learner.id,
        email: learner.email,
        name: learner.name,
        user_id: null,
        phone: null,
        locale: 'en',
        timezone: 'America/New_York',
        status: learner.status as 'active' | 'blocked' | 'invited',
        tags: json(learner.tags),
        marketing_opt_in: i % 3 === 0 ? 1 : 0,
        source: learner.status === 'invited' ? 'api' : i % 4 === 0 ? 'checkout' : 'signup',
        notes: null,
        created_at: joined,
        updated_at: joined,
      })
      .execute()
    if (learner.status === 'invited') continue
    const courses = [COURSES[0], COURSES[(i % 4) + 1], i % 5 === 0 ? COURSES[6] : undefined]
    for (const [k, course] of courses.entries()) {
      if (!course || (k > 0 && i % 2 === 1)) continue
      const state =
        course.status === 'archived' ? 'completed' : (STATES[(i + k) % STATES.length] ?? 'active')
      const enrollmentId = `enr_demo_${String(i + 1).padStart(2, '0')}_${k + 1}`
      await db
        .insertInto('enrollments')
        .values({
          id: enrollmentId,
          student_id: learner.id,
          course_id: slugId('crs', course.slug),
          pricing_plan_id: (course.plans[0]?.id as string | undefined) ?? null,
          status: state,
          source: sourceOf(i, course),
          started_at: joined + DAY,
          completed_at: state === 'completed' ? joined + 20 * DAY : null,
          expires_at: state === 'expired' ? now - 5 * DAY : null,
          created_at: joined + DAY,
          updated_at: joined + DAY,
        })
        .execute()
      const done = state === 'completed' ? 99 : state === 'active' ? i % 4 : 1
      const lessons = await db
        .selectFrom('lessons')
        .select('id')
        .where('course_id', '=', slugId('crs', course.slug))
        .orderBy('id')
        .limit(done)
        .execute()
      for (const lesson of lessons)
        await db
          .insertInto('lesson_progress')
          .values({
            enrollment_id: enrollmentId,
            lesson_id: lesson.id,
            completed_at: joined + 2 * DAY,
          })
          .execute()
    }
  }
}

async function seedWriting(db: Db, now: number): Promise<void> {
  for (const [i, category] of POST_CATEGORIES.entries()) {
    const id = slugId('pcat', category.name.toLowerCase())
    await db
      .insertInto('post_categories')
      .values({
        id,
        name: category.name,
        slug: category.name.toLowerCase(),
        description: null,
        position: i,
        created_at: now - 300 * DAY,
        updated_at: now - 300 * DAY,
      })
      .execute()
  }
  const categoryOf = (slug: string) => {
    const category = POST_CATEGORIES.find((c) => (c.posts as readonly string[]).includes(slug))
    return category ? slugId('pcat', category.name.toLowerCase()) : null
  }
  for (const post of POSTS)
    await db
      .insertInto('posts')
      .values({
        id: slugId('pst', post.slug),
        title: post.title,
        slug: post.slug,
        subtitle: null,
        excerpt: `${post.title}, in a few words.`,
        body: `<p>${post.title}.</p>`,
        cover_image_url: null,
        status: post.status,
        access: post.access,
        tags: json([]),
        author_lecturer_id: 'lec_demo_maya',
        category_id: categoryOf(post.slug),
        seo: null,
        comments_enabled: 1,
        published_at: post.daysAgo === null ? null : now - post.daysAgo * DAY,
        created_at: now - 100 * DAY,
        updated_at: now - 100 * DAY,
      })
      .execute()
  for (const page of PAGES)
    await db
      .insertInto('pages')
      .values({
        id: slugId('pag', page.slug),
        title: page.title,
        slug: page.slug,
        type: page.type,
        status: page.status,
        blocks: json([{ type: 'rich_text', props: { html: `<h2>${page.title}</h2>` } }]),
        seo: null,
        show_in_navigation: page.nav,
        published_at: page.status === 'published' ? now - 100 * DAY : null,
        created_at: now - 100 * DAY,
        updated_at: now - 100 * DAY,
      })
      .execute()
}
