import type { FieldError } from '../conventions.js'
import {
  boolean,
  checkStorable,
  email,
  enumeration,
  type Field,
  type FieldOptions,
  fail,
  instant,
  integer,
  reference,
  stringList,
  text,
  url,
} from '../framework/fields.js'
import { defineResource } from '../framework/resource.js'
import { list, object, openObject } from '../framework/structures.js'
import { notWrittenByApi } from '../people/owners.js'

export const FORM_FIELD_TYPES = [
  'text',
  'email',
  'phone',
  'textarea',
  'select',
  'multiselect',
  'checkbox',
  'number',
  'date',
  'url',
] as const

export type FormFieldType = (typeof FORM_FIELD_TYPES)[number]

/** One question of a form, as stored in `forms.fields`. */
export interface FormField {
  readonly key: string
  readonly label: string
  readonly type: FormFieldType
  readonly required: boolean
  readonly options: readonly string[]
}

const formField: Record<string, Field> = {
  key: text({
    required: true,
    max: 40,
    pattern: /^[a-z][a-z0-9_]*$/,
    patternHint: 'lower-case letters, digits and underscores, starting with a letter',
  }),
  label: text({ required: true, max: 200 }),
  type: enumeration(FORM_FIELD_TYPES, { required: true }),
  required: boolean({ default: false }),
  options: stringList({ default: [], description: 'The choices of select and multiselect' }),
}

/** What a form says after a submission (also part of the submit answer). */
export const successMessage = text({
  public: true,
  readOnly: true,
  max: 1000,
  nullable: true,
  description: 'Shown to the person after a submission',
})

/**
 * Forms (DOMAIN.md §4.3.18), read only through the API: the team defines them in the admin.
 * The public reads (and lists) active forms' definitions, to render them; submissions are
 * made anonymously with `POST /api/v1/forms/{id}/submissions` (form-submission-endpoint.ts).
 */
export const forms = defineResource({
  object: 'form',
  collection: 'forms',
  table: 'forms',
  idPrefix: 'frm',
  summary: 'Forms (read only; anonymous submissions)',
  scopes: { read: 'forms:read' },
  writeRoles: [],
  ownership: notWrittenByApi('Forms are made by the school’s site builder'),
  operations: ['list', 'get'],
  public: { get: { status: ['active'] } },
  fields: {
    title: text({ public: true, readOnly: true, max: 200, sortable: true, search: true }),
    type: enumeration(['newsletter', 'lead_magnet', 'application', 'survey', 'contact'], {
      public: true,
      readOnly: true,
      filter: true,
    }),
    status: enumeration(['active', 'closed'], { public: true, readOnly: true, filter: true }),
    fields: list(formField, {
      max: 50,
      noun: 'fields',
      public: true,
      readOnly: true,
      description: 'The questions, in order',
    }),
    linked_to: object(
      {
        page_id: reference('pag', { nullable: true }),
        course_id: reference('crs', { nullable: true }),
        event_id: reference('evt', { nullable: true }),
        digital_product_id: reference('dpr', { nullable: true }),
      },
      {
        public: true,
        readOnly: true,
        nullable: true,
        description: 'What the form belongs to: a page, course, event or digital product',
      },
    ),
    success_message: successMessage,
    submissions_count: integer({ readOnly: true, description: 'Submissions received, all time' }),
  },
  async enrich(db, rows, full) {
    if (!full) return
    const counts = await db
      .selectFrom('form_submissions')
      .select((eb) => ['form_id', eb.fn.countAll().as('n')])
      .where(
        'form_id',
        'in',
        rows.map((row) => row.id),
      )
      .groupBy('form_id')
      .execute()
    const byForm = new Map(counts.map((row) => [row.form_id, Number(row.n)]))
    for (const row of rows) row.submissions_count = byForm.get(row.id) ?? 0
  },
  computed: (row, full) => (full ? { submissions_count: row.submissions_count ?? 0 } : {}),
})

const utm: Record<string, Field> = {
  source: text({ max: 200, nullable: true }),
  medium: text({ max: 200, nullable: true }),
  campaign: text({ max: 200, nullable: true }),
  term: text({ max: 200, nullable: true }),
  content: text({ max: 200, nullable: true }),
}

/** The members a submission's body may carry besides `answers` (checked against the form). */
export const SUBMISSION_MEMBERS: Record<string, Field> = {
  email: email({ nullable: true }),
  name: text({ max: 200, nullable: true }),
  source_url: url({ nullable: true }),
  utm: object(utm, { nullable: true }),
}

/**
 * A submission's answers: field key → answer, the keys being the form's own questions, known
 * only once the form is read ({@link checkAnswers} checks them then). Here only its shape.
 */
export const answersMember = (description: string, options: FieldOptions = {}): Field =>
  openObject('field key → answer', { ...options, description })

/** The members of a stored submission, as its reads and the submit answer show them. */
export const submissionFields = {
  form_id: reference('frm', { readOnly: true, filter: true }),
  email: email({ readOnly: true, nullable: true, filter: true, search: true }),
  name: text({ readOnly: true, max: 200, nullable: true, search: true }),
  student_id: reference('stu', { readOnly: true, nullable: true, filter: true }),
  answers: answersMember('Field key → answer', { readOnly: true }),
  source_url: url({ readOnly: true, nullable: true }),
  utm: object(utm, { readOnly: true, nullable: true }),
  submitted_at: instant({ readOnly: true, filter: true, sortable: true }),
} satisfies Record<string, Field>

/**
 * Submissions of a form, read with forms:read: `GET /api/v1/forms/{id}/submissions` and
 * `GET /api/v1/form_submissions/{id}`. `student_id` is the learner with the submitted e-mail,
 * when one exists (a submission never creates an account).
 */
export const formSubmissions = defineResource({
  object: 'form_submission',
  collection: 'form_submissions',
  table: 'form_submissions',
  idPrefix: 'fsub',
  summary: 'Submissions of forms (read only)',
  scopes: { read: 'forms:read' },
  writeRoles: [],
  ownership: notWrittenByApi('Submissions are sent by visitors (anonymously) and kept as sent'),
  operations: ['list', 'get'],
  parent: { resource: () => forms, column: 'form_id', segment: 'submissions' },
  defaultSort: '-submitted_at',
  fields: submissionFields,
})

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const PHONE = /^\+?[0-9][0-9 ().-]{3,38}[0-9]$/
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const HTTP_URL = /^https?:\/\/[^\s]+$/

/** The longest answer each kind of question takes. */
const MAX_LENGTH: Partial<Record<FormFieldType, number>> = {
  text: 500,
  textarea: 5000,
  email: 254,
  phone: 40,
  url: 2000,
}

function isDate(value: string): boolean {
  const match = DATE.exec(value)
  if (!match) return false
  const [, y, m, d] = match.map(Number) as [number, number, number, number]
  const date = new Date(Date.UTC(y, m - 1, d))
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d
}

/** Checks one answer against its question; the normalised value, or undefined after an error. */
function checkAnswer(spec: FormField, value: unknown, path: string, errors: FieldError[]): unknown {
  const max = MAX_LENGTH[spec.type]
  if (max !== undefined) {
    if (typeof value !== 'string') return fail(errors, path, 'type', `${path} must be a string`)
    if (!checkStorable(value, path, errors)) return undefined
    const trimmed = value.trim()
    if (trimmed.length > max)
      return fail(errors, path, 'too_long', `${path} must be at most ${max} characters`)
    if (spec.type === 'email' && !EMAIL.test(trimmed))
      return fail(errors, path, 'format', `${path} must be an e-mail address`)
    if (spec.type === 'phone' && !PHONE.test(trimmed))
      return fail(errors, path, 'format', `${path} must be a phone number`)
    if (spec.type === 'url' && !HTTP_URL.test(trimmed))
      return fail(errors, path, 'format', `${path} must be an http(s) URL`)
    return spec.type === 'email' ? trimmed.toLowerCase() : trimmed
  }
  switch (spec.type) {
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value))
        return fail(errors, path, 'type', `${path} must be a number`)
      return value
    case 'date':
      if (typeof value !== 'string' || !isDate(value))
        return fail(errors, path, 'format', `${path} must be a date (YYYY-MM-DD)`)
      return value
    case 'checkbox':
      if (typeof value !== 'boolean') return fail(errors, path, 'type', `${path} must be a boolean`)
      if (spec.required && !value) return fail(errors, path, 'required', `${path} must be checked`)
      return value
    case 'select':
      if (typeof value !== 'string' || !spec.options.includes(value))
        return fail(errors, path, 'enum', `${path} must be one of ${spec.options.join(', ')}`)
      return value
    case 'multiselect': {
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
        return fail(errors, path, 'type', `${path} must be a list of strings`)
      const unknown = value.filter((v) => !spec.options.includes(v))
      if (unknown.length > 0)
        return fail(
          errors,
          path,
          'enum',
          `${path} may only hold ${spec.options.join(', ')} (not ${unknown.join(', ')})`,
        )
      const chosen = [...new Set(value as string[])]
      if (spec.required && chosen.length === 0)
        return fail(errors, path, 'required', `${path} needs at least one choice`)
      return chosen
    }
    default:
      return fail(errors, path, 'type', `${path} has an unsupported type`)
  }
}

/** Whether an answer counts as not given (an empty text field of an optional question). */
const blank = (value: unknown) =>
  value === null || value === undefined || (typeof value === 'string' && value.trim() === '')

/**
 * Checks `answers` against the form's questions: unknown keys refused, required questions
 * answered, every answer of its question's type. Errors name `answers.<key>`.
 */
export function checkAnswers(
  fields: readonly FormField[],
  answers: unknown,
  errors: FieldError[],
): Record<string, unknown> | undefined {
  if (typeof answers !== 'object' || answers === null || Array.isArray(answers))
    return fail(errors, 'answers', 'type', 'answers must be an object of field key → answer')
  const given = answers as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(given))
    if (!fields.some((f) => f.key === key))
      fail(errors, `answers.${key}`, 'unknown_field', `answers.${key} is not a field of this form`)
  for (const spec of fields) {
    const path = `answers.${spec.key}`
    const value = given[spec.key]
    if (blank(value)) {
      if (spec.required) fail(errors, path, 'required', `${path} is required`)
      continue
    }
    const parsed = checkAnswer(spec, value, path, errors)
    if (parsed !== undefined) out[spec.key] = parsed
  }
  return out
}

/** A stored form's questions (JSON text), defaults filled. */
export function fieldsOf(stored: string): FormField[] {
  const parsed = JSON.parse(stored) as Array<Partial<FormField>>
  return parsed.map((f) => ({
    key: String(f.key),
    label: String(f.label ?? f.key),
    type: f.type ?? 'text',
    required: f.required === true,
    options: f.options ?? [],
  }))
}
