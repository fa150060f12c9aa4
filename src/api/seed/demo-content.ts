/** The fixed content of the demo school (DOMAIN.md §4.7); seed-demo.ts loads it. */

export const DEMO_PASSWORD = 'brightframe-demo-password'

export const TEAM = [
  {
    id: 'usr_demo_maya',
    name: 'Maya Chen',
    email: 'maya@brightframe.example',
    role: 'owner',
    status: 'active',
  },
  {
    id: 'usr_demo_lena',
    name: 'Lena Fischer',
    email: 'lena@brightframe.example',
    role: 'admin',
    status: 'active',
  },
  {
    id: 'usr_demo_diego',
    name: 'Diego Álvarez',
    email: 'diego@brightframe.example',
    role: 'lecturer',
    status: 'active',
  },
  {
    id: 'usr_demo_sam',
    name: 'Sam Okafor',
    email: 'sam@brightframe.example',
    role: 'teaching_assistant',
    status: 'active',
  },
  {
    id: 'usr_demo_support',
    name: 'Support',
    email: 'support@brightframe.example',
    role: 'editor',
    status: 'invited',
  },
  {
    id: 'usr_demo_jo',
    name: 'Jo Park',
    email: 'jo@brightframe.example',
    role: 'teaching_assistant',
    status: 'suspended',
  },
] as const

export const LECTURERS = [
  {
    id: 'lec_demo_maya',
    slug: 'maya-chen',
    name: 'Maya Chen',
    headline: 'Founder, landscape photographer',
    member: 'usr_demo_maya',
    visible: 1,
    featured: 1,
  },
  {
    id: 'lec_demo_diego',
    slug: 'diego-alvarez',
    name: 'Diego Álvarez',
    headline: 'Portrait and street photographer',
    member: 'usr_demo_diego',
    visible: 1,
    featured: 0,
  },
  {
    id: 'lec_demo_priya',
    slug: 'priya-nair',
    name: 'Priya Nair',
    headline: 'Guest: astrophotography',
    member: null,
    visible: 1,
    featured: 0,
  },
  {
    id: 'lec_demo_draft',
    slug: 'new-lecturer',
    name: 'New Lecturer (draft)',
    headline: null,
    member: null,
    visible: 0,
    featured: 0,
  },
] as const

export const CATEGORIES = ['Fundamentals', 'Editing', 'Portraits', 'Outdoor'] as const

const usd = (amount: number) => ({ amount, currency: 'USD' })
const lifetime = { type: 'lifetime' }

export interface DemoCourse {
  readonly slug: string
  readonly title: string
  readonly status: 'draft' | 'published' | 'archived'
  readonly visibility: 'public' | 'unlisted' | 'private'
  readonly category: (typeof CATEGORIES)[number]
  readonly featured?: boolean
  readonly plans: readonly Record<string, unknown>[]
  readonly sections: number
  /** Days from today the cohort starts (pre-order). */
  readonly startsInDays?: number
}

export const COURSES: readonly DemoCourse[] = [
  {
    slug: 'photography-foundations',
    title: 'Photography Foundations',
    status: 'published',
    visibility: 'public',
    category: 'Fundamentals',
    featured: true,
    sections: 4,
    plans: [
      {
        id: 'pln_demo_foundations_full',
        name: 'Full access',
        type: 'one_time',
        price: usd(14900),
        access: lifetime,
        is_default: true,
        available: true,
      },
      {
        id: 'pln_demo_foundations_3x',
        name: '3 payments',
        type: 'installments',
        price: usd(5500),
        installments_count: 3,
        access: lifetime,
        is_default: false,
        available: true,
      },
    ],
  },
  {
    slug: 'lightroom-editing-masterclass',
    title: 'Lightroom Editing Masterclass',
    status: 'published',
    visibility: 'public',
    category: 'Editing',
    sections: 3,
    plans: [
      {
        id: 'pln_demo_lightroom',
        name: 'Full access',
        type: 'one_time',
        price: usd(9900),
        access: lifetime,
        is_default: true,
        available: true,
      },
    ],
  },
  {
    slug: 'smartphone-photography-in-60-minutes',
    title: 'Smartphone Photography in 60 Minutes',
    status: 'published',
    visibility: 'public',
    category: 'Fundamentals',
    sections: 1,
    plans: [
      {
        id: 'pln_demo_smartphone',
        name: 'Free',
        type: 'free',
        price: usd(0),
        access: lifetime,
        is_default: true,
        available: true,
      },
    ],
  },
  {
    slug: 'portrait-lighting',
    title: 'Portrait Lighting',
    status: 'published',
    visibility: 'unlisted',
    category: 'Portraits',
    sections: 3,
    plans: [
      {
        id: 'pln_demo_portrait',
        name: 'One year',
        type: 'one_time',
        price: usd(12900),
        access: { type: 'days', days: 365 },
        is_default: true,
        available: true,
      },
    ],
  },
  {
    slug: 'night-sky-astrophotography',
    title: 'Night Sky & Astrophotography',
    status: 'published',
    visibility: 'public',
    category: 'Outdoor',
    sections: 2,
    startsInDays: 30,
    plans: [
      {
        id: 'pln_demo_night_sky',
        name: 'Pre-order',
        type: 'pre_order',
        price: usd(7900),
        access: lifetime,
        is_default: true,
        available: true,
      },
    ],
  },
  {
    slug: 'street-photography-essentials',
    title: 'Street Photography Essentials',
    status: 'draft',
    visibility: 'public',
    category: 'Outdoor',
    sections: 2,
    plans: [
      {
        id: 'pln_demo_street',
        name: 'Full access',
        type: 'one_time',
        price: usd(8900),
        access: lifetime,
        is_default: true,
        available: true,
      },
    ],
  },
  {
    slug: 'film-photography-101',
    title: 'Film Photography 101',
    status: 'archived',
    visibility: 'public',
    category: 'Fundamentals',
    sections: 2,
    plans: [
      {
        id: 'pln_demo_film',
        name: 'Full access',
        type: 'one_time',
        price: usd(4900),
        access: lifetime,
        is_default: true,
        available: false,
      },
    ],
  },
]

export const LESSON_TYPES = ['video', 'text', 'pdf', 'video', 'quiz'] as const

const FIRST = ['Ada', 'Ben', 'Chloe', 'Dev', 'Elif', 'Farah', 'Gus', 'Hana', 'Ivan', 'Jade']
const LAST = ['Moreau', 'Silva', 'Kim', 'Novak']

/** Forty learners: names and e-mails under example.com, tags, one blocked, two invited. */
export const LEARNERS = Array.from({ length: 40 }, (_, i) => {
  const name = `${FIRST[i % FIRST.length]} ${LAST[Math.floor(i / FIRST.length)]}`
  return {
    id: `stu_demo_${String(i + 1).padStart(2, '0')}`,
    name,
    email: `${name.toLowerCase().replace(' ', '.')}@example.com`,
    status: i === 7 ? 'blocked' : i >= 38 ? 'invited' : 'active',
    tags: [i % 3 === 0 && 'newsletter', i % 10 === 1 && 'vip', i < 6 && 'b2b-cohort-a'].filter(
      Boolean,
    ),
  }
})

/** Blog categories, each with the posts filed under it. */
export const POST_CATEGORIES = [
  { name: 'News', posts: ['welcome-to-brightframe', 'night-sky-course-announcement'] },
  { name: 'Techniques', posts: ['golden-hour-checklist', 'film-is-back'] },
  { name: 'Editing', posts: ['lightroom-presets-for-members'] },
] as const

export const POSTS = [
  {
    slug: 'welcome-to-brightframe',
    title: 'Welcome to Brightframe',
    status: 'published',
    access: 'public',
    daysAgo: 60,
  },
  {
    slug: 'golden-hour-checklist',
    title: 'The golden hour checklist',
    status: 'published',
    access: 'public',
    daysAgo: 20,
  },
  {
    slug: 'lightroom-presets-for-members',
    title: 'Lightroom presets for members',
    status: 'published',
    access: 'registered',
    daysAgo: 10,
  },
  {
    slug: 'night-sky-course-announcement',
    title: 'Night Sky course: pre-orders open',
    status: 'scheduled',
    access: 'public',
    daysAgo: -3,
  },
  {
    slug: 'gear-guide-draft',
    title: 'Gear guide (draft)',
    status: 'draft',
    access: 'public',
    daysAgo: null,
  },
  {
    slug: 'film-is-back',
    title: 'Film is back (archived)',
    status: 'archived',
    access: 'public',
    daysAgo: 400,
  },
] as const

export const PAGES = [
  { slug: 'home', title: 'Home', type: 'home', status: 'published', nav: 0 },
  { slug: 'about', title: 'About', type: 'standard', status: 'published', nav: 1 },
  { slug: 'terms', title: 'Terms of service', type: 'legal', status: 'published', nav: 0 },
  { slug: 'spring-sale', title: 'Spring sale (draft)', type: 'landing', status: 'draft', nav: 0 },
] as const
