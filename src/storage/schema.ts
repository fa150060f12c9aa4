import type { Kysely } from 'kysely'
import type { ActivityTables } from './tables/activity.js'
import type { CommerceTables } from './tables/commerce.js'
import type { CommunityTables } from './tables/community.js'
import type { EventTables } from './tables/events.js'
import type { MembershipTables } from './tables/memberships.js'
import type {
  AccessTokenTable,
  AuthorizationCodeTable,
  AuthorizationRequestTable,
  ClientTable,
  GrantTable,
  RefreshTokenTable,
  SigningKeyTable,
  TrustedClientDocumentTable,
  UserStatusColumn,
  UserTable,
  UserTeamColumns,
} from './tables/oauth.js'
import type {
  AppearanceTable,
  CourseCategoryTable,
  CourseTable,
  EnrollmentTable,
  IdempotencyKeyTable,
  LecturerTable,
  LessonTable,
  PageTable,
  PostTable,
  SchoolTable,
  SectionTable,
  StudentTable,
} from './tables/school.js'
import type { StorageTables } from './tables/storage.js'

/**
 * The tables, as Kysely sees them. Times are epoch milliseconds; lists and objects are JSON
 * text; every server-made secret is stored only as its SHA-256 digest (`*_digest`).
 * docs/storage.md describes them for operators.
 */
export interface Schema
  extends ActivityTables,
    CommerceTables,
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
  users: UserTable & UserStatusColumn & Omit<UserTeamColumns, 'status'>
  sessions: {
    id_digest: string
    user_id: string
    auth_time: number
    created_at: number
    expires_at: number
  }
  authorization_requests: AuthorizationRequestTable
  /** `redirect_uri` is always a column; GrantTable leaves it out of reads that do not need it. */
  grants: GrantTable & { redirect_uri: string | null }
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
