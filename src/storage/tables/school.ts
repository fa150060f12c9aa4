import type { Generated } from 'kysely'

/** The tables of the school's own records: the school, its catalogue, its people as learners. */

/** The school's settings (migration 0003 added all but id and name); JSON text for structures. */
export interface SchoolTable {
  id: string
  name: string
  tagline: string | null
  description: string | null
  locale: string | null
  timezone: string | null
  currency: string | null
  country: string | null
  contact_email: string | null
  support_email: string | null
  social_links: string | null
  seo_defaults: string | null
  legal: string | null
  signup: string | null
  features: string | null
  created_at: number
  updated_at: number
}

/** A POST answered under an Idempotency-Key; `status` is null while the first run is in flight. */
export interface IdempotencyKeyTable {
  /** Digest of the caller, the path and the key. */
  key_digest: string
  request_digest: string
  status: number | null
  body: string | null
  location: string | null
  created_at: number
}

export interface AppearanceTable {
  id: string
  logo_url: string | null
  logo_dark_url: string | null
  favicon_url: string | null
  colors: string | null
  typography: string | null
  color_scheme: string
  navigation: string | null
  footer: string | null
  course_player_theme: string
  homepage_layout: string
  custom_css: string | null
  created_at: number
  updated_at: number
}

/** Categories of courses, and (the same columns) of blog posts. */
export interface CourseCategoryTable {
  id: string
  name: string
  slug: string
  description: string | null
  position: number
  created_at: number
  updated_at: number
}

/** Booleans are 0/1; tags, pricing plans, enrollment settings and SEO are JSON text. */
export interface CourseTable {
  id: string
  title: string
  slug: string
  subtitle: string | null
  description: string | null
  cover_image_url: string | null
  promo_video_url: string | null
  status: 'draft' | 'published' | 'archived'
  visibility: 'public' | 'unlisted' | 'private'
  featured: number
  category_id: string | null
  tags: string | null
  level: string
  language: string | null
  pricing_plans: string
  enrollment: string | null
  certificate_enabled: number
  comments_enabled: number
  reviews_enabled: number
  seo: string | null
  published_at: number | null
  /** JSON list of `lec_…` ids, in display order (`[]` by default). */
  lecturer_ids: Generated<string>
  created_at: number
  updated_at: number
}

export interface SectionTable {
  id: string
  course_id: string
  title: string
  description: string | null
  position: number
  status: 'draft' | 'published'
  /** JSON: {type: none|days_after_enrollment|on_date, days?, date?}. */
  drip: string | null
  created_at: number
  updated_at: number
}

/** `video` and `attachments` are JSON; `is_free_preview` and `comments_enabled` are 0/1. */
export interface LessonTable {
  id: string
  course_id: string
  section_id: string
  title: string
  type: string
  position: number
  status: 'draft' | 'published'
  is_free_preview: number
  duration_seconds: number | null
  body: string | null
  video: string | null
  attachments: string | null
  embed_url: string | null
  comments_enabled: number
  completion_rule: string
  created_at: number
  updated_at: number
}

/** `links` is JSON; `visible` and `featured` are 0/1; `member_id` is a team account (users.id). */
export interface LecturerTable {
  id: string
  slug: string
  name: string
  headline: string | null
  bio: string | null
  avatar_url: string | null
  links: string | null
  visible: number
  featured: number
  position: number
  email: string | null
  member_id: string | null
  created_at: number
  updated_at: number
}

/** A scheduled post has status `scheduled` and a future `published_at`. */
export interface PostTable {
  id: string
  title: string
  slug: string
  subtitle: string | null
  excerpt: string | null
  body: string
  cover_image_url: string | null
  status: 'draft' | 'scheduled' | 'published' | 'archived'
  access: 'public' | 'registered' | 'paid'
  tags: string | null
  author_lecturer_id: string | null
  category_id: string | null
  seo: string | null
  comments_enabled: number
  published_at: number | null
  created_at: number
  updated_at: number
}

/** `blocks` is a JSON list of {type, props}. */
export interface PageTable {
  id: string
  title: string
  slug: string
  type: 'home' | 'standard' | 'landing' | 'legal' | 'thank_you'
  status: 'draft' | 'published'
  blocks: string
  seo: string | null
  show_in_navigation: number
  published_at: number | null
  created_at: number
  updated_at: number
}

/** A learner; `user_id` links the account once they sign up. `tags` is JSON. */
export interface StudentTable {
  id: string
  /** Lower-cased; unique. */
  email: string
  name: string
  user_id: string | null
  phone: string | null
  locale: string | null
  timezone: string | null
  status: 'active' | 'blocked' | 'invited'
  tags: string | null
  marketing_opt_in: number
  source: string
  notes: string | null
  created_at: number
  updated_at: number
}

/** One per student and course (unique); `expires_at` null means lifetime access. */
export interface EnrollmentTable {
  id: string
  student_id: string
  course_id: string
  pricing_plan_id: string | null
  status: 'active' | 'completed' | 'expired' | 'revoked'
  source: string
  started_at: number
  completed_at: number | null
  expires_at: number | null
  created_at: number
  updated_at: number
}
