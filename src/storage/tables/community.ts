/**
 * Comments on lessons and posts. `thread_id` is the top-level comment's id (its own for a
 * top-level one); `author_id` is a `stu_…` (student) or a `usr_…` (member).
 */
export interface CommentTable {
  id: string
  target_type: 'lesson' | 'post'
  target_id: string
  course_id: string | null
  parent_id: string | null
  thread_id: string
  author_type: 'student' | 'member'
  author_id: string
  body: string
  status: 'published' | 'pending' | 'hidden' | 'deleted'
  likes_count: number
  created_at: number
  updated_at: number
}

/** A form definition; `fields` is a JSON list, `linked_to` a JSON object or null. */
export interface FormTable {
  id: string
  title: string
  type: 'newsletter' | 'lead_magnet' | 'application' | 'survey' | 'contact'
  status: 'active' | 'closed'
  fields: string
  linked_to: string | null
  success_message: string | null
  created_at: number
  updated_at: number
}

/** One submission of a form; `answers` and `utm` are JSON. */
export interface FormSubmissionTable {
  id: string
  form_id: string
  email: string | null
  name: string | null
  student_id: string | null
  answers: string
  source_url: string | null
  utm: string | null
  submitted_at: number
  created_at: number
  updated_at: number
}

/** The tables of this area, merged into the Schema of schema.ts. */
export interface CommunityTables {
  comments: CommentTable
  forms: FormTable
  form_submissions: FormSubmissionTable
}
