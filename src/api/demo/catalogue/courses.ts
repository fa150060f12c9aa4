import { type CatalogueRecord, demoId, type JsonObject, usd, type When } from './types.js'

const CATEGORIES = ['Fundamentals', 'Editing', 'Portraits', 'Outdoor'] as const

type LessonType = 'video' | 'text' | 'pdf' | 'quiz'

interface DemoCourse {
  readonly slug: string
  readonly title: string
  readonly day: number
  readonly category: (typeof CATEGORIES)[number]
  readonly level?: 'beginner' | 'advanced'
  readonly featured?: true
  readonly certificate?: true
  readonly visibility?: 'unlisted'
  readonly plans: readonly JsonObject[]
  /** Each section's lessons by type; the first `previews` lessons are free previews. */
  readonly sections: readonly (readonly LessonType[])[]
  readonly previews: number
  /** The last section is still a draft. */
  readonly draftLast?: true
  /** Published the day after creation unless false; later steps (archive). */
  readonly published?: false
  readonly startsIn?: number
  readonly later?: CatalogueRecord['later']
}

const lifetime = { type: 'lifetime' }
const plan = (id: string, name: string, type: string, amount: number, extra: JsonObject = {}) => ({
  id,
  name,
  type,
  price: usd(amount),
  access: lifetime,
  is_default: true,
  available: true,
  ...extra,
})

const FULL = ['video', 'text', 'pdf', 'video', 'quiz'] as const
const SHORT = ['text', 'pdf', 'video'] as const
const LONG = ['pdf', 'video', 'quiz', 'video'] as const

const COURSES: readonly DemoCourse[] = [
  {
    slug: 'photography-foundations',
    title: 'Photography Foundations',
    day: -200,
    category: 'Fundamentals',
    level: 'beginner',
    featured: true,
    certificate: true,
    plans: [
      plan('pln_demo_foundations_full', 'Full access', 'one_time', 14900),
      plan('pln_demo_foundations_3x', '3 payments', 'installments', 5500, {
        installments_count: 3,
        is_default: false,
      }),
    ],
    sections: [FULL, SHORT, LONG, ['video', 'quiz', 'video', 'text', 'pdf']],
    previews: 2,
  },
  {
    slug: 'lightroom-editing-masterclass',
    title: 'Lightroom Editing Masterclass',
    day: -180,
    category: 'Editing',
    plans: [plan('pln_demo_lightroom', 'Full access', 'one_time', 9900)],
    sections: [FULL, SHORT, LONG],
    previews: 2,
  },
  {
    slug: 'smartphone-photography-in-60-minutes',
    title: 'Smartphone Photography in 60 Minutes',
    day: -160,
    category: 'Fundamentals',
    plans: [plan('pln_demo_smartphone', 'Free', 'free', 0)],
    sections: [['video', 'text', 'pdf']],
    previews: 1,
  },
  {
    slug: 'portrait-lighting',
    title: 'Portrait Lighting',
    day: -140,
    category: 'Portraits',
    level: 'advanced',
    visibility: 'unlisted',
    plans: [
      plan('pln_demo_portrait', 'One year', 'one_time', 12900, {
        access: { type: 'days', days: 365 },
      }),
    ],
    sections: [FULL, SHORT, LONG],
    previews: 2,
  },
  {
    slug: 'night-sky-astrophotography',
    title: 'Night Sky & Astrophotography',
    day: -120,
    category: 'Outdoor',
    plans: [plan('pln_demo_night_sky', 'Pre-order', 'pre_order', 7900)],
    sections: [FULL, SHORT],
    previews: 1,
    draftLast: true,
    startsIn: 30,
  },
  {
    slug: 'street-photography-essentials',
    title: 'Street Photography Essentials',
    day: -100,
    category: 'Outdoor',
    plans: [plan('pln_demo_street', 'Full access', 'one_time', 8900)],
    sections: [FULL, SHORT],
    previews: 2,
    published: false,
  },
  {
    slug: 'film-photography-101',
    title: 'Film Photography 101',
    day: -80,
    category: 'Fundamentals',
    plans: [plan('pln_demo_film', 'Full access', 'one_time', 4900)],
    sections: [FULL, SHORT],
    previews: 1,
    // Withdrawn from sale, then archived: its learners keep their access.
    later: [
      {
        day: -30,
        update: {
          pricing_plans: [
            plan('pln_demo_film', 'Full access', 'one_time', 4900, { available: false }),
          ],
          enrollment: { open: false },
        },
      },
      { day: -30, action: 'archive' },
    ],
  },
]

/** The categories and courses, each followed by its sections and lessons. */
export function courseRecords(when: When): CatalogueRecord[] {
  const records: CatalogueRecord[] = CATEGORIES.map((name, position) => ({
    collection: 'course_categories',
    id: demoId('cat', name.toLowerCase()),
    day: -300,
    body: { name, slug: name.toLowerCase(), position },
  }))
  for (const course of COURSES) {
    const id = demoId('crs', course.slug)
    const published = course.published !== false
    records.push({
      collection: 'courses',
      id,
      day: course.day,
      body: {
        title: course.title,
        slug: course.slug,
        description: `<p>${course.title}: a Brightframe course.</p>`,
        visibility: course.visibility ?? 'public',
        featured: course.featured === true,
        category_id: demoId('cat', course.category.toLowerCase()),
        level: course.level ?? 'all_levels',
        language: 'en',
        pricing_plans: course.plans,
        enrollment: {
          open: published,
          ...(course.startsIn !== undefined && { starts_at: when.iso(course.startsIn) }),
        },
        certificate_enabled: course.certificate === true,
      },
      later: [
        ...(published ? [{ day: course.day + 1, action: 'publish' }] : []),
        ...(course.later ?? []),
      ],
    })
    records.push(...curriculum(course, id))
  }
  return records
}

function curriculum(course: DemoCourse, courseId: string): CatalogueRecord[] {
  const slug = course.slug.replaceAll('-', '_')
  return course.sections.flatMap((lessons, s) => {
    const section = `sec_demo_${slug}_${s + 1}`
    const draft = course.draftLast === true && s === course.sections.length - 1
    return [
      {
        collection: 'sections',
        id: section,
        parent: courseId,
        day: course.day,
        body: { title: `Part ${s + 1}`, status: draft ? 'draft' : 'published' },
      },
      ...lessons.map(
        (type, l): CatalogueRecord => ({
          collection: 'lessons',
          id: `lsn_demo_${slug}_${s + 1}_${l + 1}`,
          parent: section,
          day: course.day,
          body: {
            title: `Lesson ${s + 1}.${l + 1}`,
            type,
            status: 'published',
            is_free_preview: s === 0 && l < course.previews,
            duration_seconds: type === 'video' ? 300 + l * 60 : null,
            body: `<p>Notes for lesson ${s + 1}.${l + 1}.</p>`,
            video:
              type === 'video'
                ? {
                    provider: 'youtube',
                    url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
                    duration_seconds: 300 + l * 60,
                  }
                : null,
            completion_rule: type === 'quiz' ? 'quiz_pass' : 'view',
          },
        }),
      ),
    ]
  })
}
