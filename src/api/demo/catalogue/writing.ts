import type { CatalogueRecord } from './types.js'
import { demoId } from './types.js'

const LECTURERS = [
  ['maya-chen', 'Maya Chen', 'Founder, landscape photographer', 'usr_demo_maya'],
  ['diego-alvarez', 'Diego Álvarez', 'Portrait and street photographer', 'usr_demo_diego'],
  ['priya-nair', 'Priya Nair', 'Guest: astrophotography', null],
] as const

/** The lecturers: three shown (Maya featured), and a draft profile nobody sees yet. */
export function lecturerRecords(): CatalogueRecord[] {
  const shown: CatalogueRecord[] = LECTURERS.map(([slug, name, headline, member], position) => ({
    collection: 'lecturers',
    id: `lec_demo_${slug.split('-')[0]}`,
    day: -300,
    body: {
      slug,
      name,
      headline,
      bio: `<p>${name} teaches at Brightframe.</p>`,
      visible: true,
      featured: position === 0,
      position,
      member_id: member,
    },
  }))
  const draft: CatalogueRecord = {
    collection: 'lecturers',
    id: 'lec_demo_draft',
    day: -300,
    body: {
      slug: 'new-lecturer',
      name: 'New Lecturer (draft)',
      bio: '<p>New Lecturer (draft) teaches at Brightframe.</p>',
      visible: false,
      position: 3,
    },
  }
  return [...shown, draft]
}

/** Blog categories, each with the posts filed under it. */
const POST_CATEGORIES = [
  ['News', ['welcome-to-brightframe', 'night-sky-course-announcement']],
  ['Techniques', ['golden-hour-checklist', 'film-is-back']],
  ['Editing', ['lightroom-presets-for-members']],
] as const

interface DemoPost {
  readonly slug: string
  readonly title: string
  readonly access?: 'registered'
  /** Published that many days from now (in the future: scheduled); null: a draft. */
  readonly published: number | null
  readonly archived?: number
}

const POSTS: readonly DemoPost[] = [
  { slug: 'welcome-to-brightframe', title: 'Welcome to Brightframe', published: -60 },
  { slug: 'golden-hour-checklist', title: 'The golden hour checklist', published: -20 },
  {
    slug: 'lightroom-presets-for-members',
    title: 'Lightroom presets for members',
    access: 'registered',
    published: -10,
  },
  {
    slug: 'night-sky-course-announcement',
    title: 'Night Sky course: pre-orders open',
    published: 3,
  },
  { slug: 'gear-guide-draft', title: 'Gear guide (draft)', published: null },
  { slug: 'film-is-back', title: 'Film is back (archived)', published: -400, archived: -100 },
]

const PAGES = [
  { slug: 'home', title: 'Home', type: 'home', published: true, nav: false },
  { slug: 'about', title: 'About', type: 'standard', published: true, nav: true },
  { slug: 'terms', title: 'Terms of service', type: 'legal', published: true, nav: false },
  {
    slug: 'spring-sale',
    title: 'Spring sale (draft)',
    type: 'landing',
    published: false,
    nav: false,
  },
] as const

/** Post categories, posts in every status (one scheduled), and the site's pages. */
export function writingRecords(iso: (day: number) => string): CatalogueRecord[] {
  const categories: CatalogueRecord[] = POST_CATEGORIES.map(([name], position) => ({
    collection: 'post_categories',
    id: demoId('pcat', name.toLowerCase()),
    day: -300,
    body: { name, slug: name.toLowerCase(), position },
  }))
  const categoryOf = (slug: string) => {
    const found = POST_CATEGORIES.find(([, posts]) => (posts as readonly string[]).includes(slug))
    return found ? demoId('pcat', found[0].toLowerCase()) : null
  }
  const posts = POSTS.map((post): CatalogueRecord => {
    const day = Math.min(-100, (post.published ?? 0) - 1)
    const publish =
      post.published === null
        ? []
        : post.published > 0
          ? [{ day, action: 'publish', input: { at: iso(post.published) } }]
          : [{ day: post.published, action: 'publish' }]
    return {
      collection: 'posts',
      id: demoId('pst', post.slug),
      day,
      body: {
        title: post.title,
        slug: post.slug,
        excerpt: `${post.title}, in a few words.`,
        body: `<p>${post.title}.</p>`,
        access: post.access ?? 'public',
        author_lecturer_id: 'lec_demo_maya',
        category_id: categoryOf(post.slug),
      },
      later: [
        ...publish,
        ...(post.archived === undefined ? [] : [{ day: post.archived, action: 'archive' }]),
      ],
    }
  })
  const pages = PAGES.map(
    (page): CatalogueRecord => ({
      collection: 'pages',
      id: demoId('pag', page.slug),
      day: -100,
      body: {
        title: page.title,
        slug: page.slug,
        type: page.type,
        blocks: [{ type: 'rich_text', props: { html: `<h2>${page.title}</h2>` } }],
        show_in_navigation: page.nav,
      },
      later: page.published ? [{ day: -100, action: 'publish' }] : [],
    }),
  )
  return [...categories, ...posts, ...pages]
}
