import type { ColumnType, Generated, Kysely } from 'kysely'
import type { CommerceTables } from './tables/commerce.js'
import type { CommunityTables } from './tables/community.js'
import type { EventTables } from './tables/events.js'
import type { MembershipTables } from './tables/memberships.js'
import type { StorageTables } from './tables/storage.js'

/**
 * The tables, as Kysely sees them. Times are epoch milliseconds; lists and objects are JSON
 * text; every server-made secret is stored only as its SHA-256 digest (`*_digest`).
 * docs/storage.md describes them for operators.
 */
export interface Schema
  extends CommerceTables,
    CommunityTables,
    EventTables,
    MembershipTables,
    StorageTables {
  portico_migrations: { id: string; applied_at: number }
  signing_keys: SigningKeyTable
  clients: ClientTable
  trusted_client_documents: TrustedClientDocumentTable
  rate_limits: { key: string; window_start: number; count: number }
  school: SchoolTable
  idempotency_keys: IdempotencyKeyTable
  appearance: AppearanceTable
  course_categories: CourseCategoryTable
  courses: CourseTable
  sections: SectionTable
  lessons: LessonTable
  lecturers: LecturerTable
  posts: PostTable
  post_categories: CourseCategoryTable
  pages: PageTable
  students: StudentTable
  enrollments: EnrollmentTable
  lesson_progress: { enrollment_id: string; lesson_id: string; completed_at: number }
  users: UserTable & UserStatusColumn
  sessions: {
    id_digest: string
    user_id: string
    auth_time: number
    created_at: number
    expires_at: number
  }
  authorization_requests: AuthorizationRequestTable
  grants: GrantTable
  authorization_codes: AuthorizationCodeTable
  refresh_tokens: RefreshTokenTable
  access_tokens: AccessTokenTable
  consents: {
    user_id: string
    client_id: string
    scope: string
    resource: string
    created_at: number
  }
  resource_servers: {
    id: string
    identifier: string
    name: string
    secret_digest: string
    created_at: number
  }
}

export type Db = Kysely<Schema>

export interface SigningKeyTable {
  kid: string
  alg: 'RS256' | 'ES256'
  public_jwk: string
  /** The private JWK, AES-256-GCM encrypted with the key-encryption key. */
  private_jwk_sealed: string
  created_at: number
  retired_at: number | null
}

export interface ClientTable {
  client_id: string
  /** `metadata_document`: the client_id is the URL of a Client ID Metadata Document. */
  kind: 'self_registered' | 'integration' | 'metadata_document'
  client_name: string | null
  secret_digest: string | null
  token_endpoint_auth_method: 'none' | 'client_secret_post'
  application_type: string
  redirect_uris: string
  grant_types: string
  response_types: string
  scope: string | null
  id_token_signed_response_alg: 'RS256' | 'ES256'
  created_at: number
  last_used_at: number | null
}

export interface UserTable {
  id: string
  /** Lower-cased; unique. */
  email: string
  name: string
  /** argon2id PHC string. */
  password_hash: string
  role: 'owner' | 'admin' | 'editor' | 'lecturer' | 'teaching_assistant' | 'student'
  locale: string | null
  timezone: string | null
  avatar_url: string | null
  bio: string | null
  notification_preferences: string | null
  created_at: number
  updated_at: number
  disabled_at: number | null
}

/**
 * Columns migration 0003 added to `users` for the members resource, read and written only
 * through it (src/api/resources/members.ts): `status` defaults to `active`, and `suspended`
 * goes with `disabled_at`.
 */
export interface UserTeamColumns {
  status: 'active' | 'invited' | 'suspended'
  invited_at: number | null
  invited_by: string | null
}

/**
 * `users.status` as the storage layer reads it: only an `active` person who is not disabled
 * signs in, redeems a code, refreshes or holds a live token (see `isActive` in users.ts).
 * Optional on insert, where it defaults to `active`.
 */
export interface UserStatusColumn {
  status: ColumnType<
    UserTeamColumns['status'],
    UserTeamColumns['status'] | undefined,
    UserTeamColumns['status']
  >
}

export interface AuthorizationRequestTable {
  id_digest: string
  client_id: string
  /** The validated authorization parameters, JSON. */
  params: string
  /** Digest of the cookie that ties the request to the browser that began it. */
  browser_digest: string
  /** Digest of the consent form's CSRF token. */
  csrf_digest: string
  session_digest: string | null
  /** Digest of the client address, for requests of browsers not signed in (capped per address). */
  address_digest: string | null
  created_at: number
  expires_at: number
  consumed_at: number | null
}

export interface GrantTable {
  id: string
  client_id: string
  user_id: string
  scope: string
  resource: string
  created_at: number
  last_used_at: number | null
  /** When the last refresh token of the grant expires. */
  expires_at: number
  revoked_at: number | null
  /** The redirect URI of the authorization that created the grant; null for older grants. */
  redirect_uri?: string | null
}

/** A Client ID Metadata Document URL an operator reviewed: its https callbacks are allowed. */
export interface TrustedClientDocumentTable {
  url: string
  created_at: number
}

export interface AuthorizationCodeTable {
  code_digest: string
  grant_id: string
  client_id: string
  user_id: string
  redirect_uri: string
  code_challenge: string
  scope: string
  resource: string
  nonce: string | null
  auth_time: number
  created_at: number
  expires_at: number
  consumed_at: number | null
}

export interface RefreshTokenTable {
  token_digest: string
  grant_id: string
  client_id: string
  scope: string
  created_at: number
  expires_at: number
  rotated_at: number | null
}

export interface AccessTokenTable {
  token_digest: string
  grant_id: string
  client_id: string
  user_id: string
  scope: string
  audience: string
  created_at: number
  expires_at: number
}

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
