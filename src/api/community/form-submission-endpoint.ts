import type { AppDeps } from '../../app-deps.js'
import type { FormSubmissionTable } from '../../storage/tables/community.js'
import { recordChange } from '../activity/record.js'
import { type FieldError, validationFailed } from '../conventions.js'
import { defineEndpoint, jsonAnswer } from '../framework/endpoint.js'
import type { Endpoint } from '../framework/operation.js'
import { shown, view } from '../framework/views.js'
import { ProblemError } from '../problem.js'
import {
  answersMember,
  checkAnswers,
  fieldsOf,
  formSubmissions,
  SUBMISSION_MEMBERS,
  submissionFields,
  successMessage,
} from './forms.resource.js'

const SUBMISSIONS = '/api/v1/forms/:form_id/submissions'
/** A submission is a few answers; anything bigger is not one (413). */
const SUBMISSION_BODY_LIMIT = 32 * 1024

/** Counts one submission attempt from the client's address; 429 with Retry-After past the limit. */
async function limitSubmissions(deps: AppDeps, address: string, now: number): Promise<void> {
  const verdict = await deps.rateLimiter.hit(
    'form-submission',
    address,
    deps.config.formSubmissionRateLimit,
    60_000,
    now,
  )
  if (!verdict.allowed)
    throw new ProblemError(
      429,
      {
        code: 'rate_limited',
        title: 'Too Many Requests',
        detail: 'too many form submissions from this address; retry later',
      },
      { 'retry-after': String(verdict.retryAfter) },
    )
}

/** Field key → answer; checked against the form's questions once the form is read. */
const answers = answersMember(
  'Field key → answer, checked against the form’s fields (type, required, options)',
  { required: true },
)

/** The stored submission and the message of its form. */
type Submitted = FormSubmissionTable & { readonly success_message: string | null }

/** The submit answer: the submission as stored (without `student_id`) and the form's message. */
const submission = view<Submitted>(
  {
    id: shown.id(formSubmissions.idPrefix),
    object: shown.constant(formSubmissions.object),
    form_id: shown.field(submissionFields.form_id),
    email: shown.field(submissionFields.email),
    name: shown.field(submissionFields.name),
    answers: shown.field(submissionFields.answers),
    source_url: shown.field(submissionFields.source_url),
    utm: shown.field(submissionFields.utm),
    submitted_at: shown.field(submissionFields.submitted_at),
    created_at: shown.time(),
    updated_at: shown.time(),
    success_message: shown.field(successMessage),
  },
  {
    required: [
      'id',
      'object',
      'form_id',
      'email',
      'name',
      'answers',
      'source_url',
      'utm',
      'submitted_at',
      'created_at',
      'updated_at',
      'success_message',
    ],
  },
)

/**
 * `POST /api/v1/forms/{id}/submissions`: anyone may submit an active form, with or without a
 * token (DOMAIN.md §4.5). Rate-limited per client address, validated against the form's
 * questions. The learner with the submitted e-mail is linked as `student_id`, but the answer
 * never says whether one exists (no account discovery), and no account is ever created.
 */
export const formSubmissionEndpoint: Endpoint = defineEndpoint({
  name: 'form_submissions.submit',
  method: 'POST',
  path: SUBMISSIONS,
  operationId: 'submitForm',
  summary: 'Submit an active form (no token needed; rate-limited per client address)',
  tags: ['form_submissions'],
  public: true,
  jsonBodyLimit: SUBMISSION_BODY_LIMIT,
  // Every attempt counts, however malformed its body: per client address, or per person when
  // the binding knows no address (a call made without HTTP).
  before: ({ deps, caller, input, now }) =>
    limitSubmissions(
      deps,
      input.clientAddress ?? (caller.kind === 'token' ? `user ${caller.user.id}` : ''),
      now,
    ),
  body: { answers, ...SUBMISSION_MEMBERS },
  output: {
    status: 201,
    description: 'Accepted: the submission and the form’s success message',
    location: true,
    schema: submission.schema,
  },
  problems: {
    '400': 'The body is not a JSON object',
    '401': 'An invalid token (none is needed)',
    '404': 'No active form with this id (closed forms take no submissions)',
    '413': 'The body is too large',
    '415': 'The body is not application/json',
    '422': 'Validation failed: errors names each field, answers.<key> for answers',
    '429': 'Too many submissions from this address; see Retry-After',
  },
  async run({ deps, caller, params, body, now, operation }) {
    const db = deps.database.db
    // A closed form is not public: the same 404 as for one that never existed.
    const form = await db
      .selectFrom('forms')
      .selectAll()
      .where('id', '=', params.form_id ?? '')
      .where('status', '=', 'active')
      .executeTakeFirst()
    if (!form)
      throw new ProblemError(404, {
        code: 'not_found',
        title: 'Not Found',
        detail: 'no active form with this id',
      })

    const errors: FieldError[] = []
    const questions = fieldsOf(form.fields)
    const checked = checkAnswers(questions, body.answers, errors)
    if (errors.length > 0 || !checked) throw validationFailed(errors)

    // The contact of the submission: given beside the answers, or the form's own questions.
    const emailQuestion = questions.find((q) => q.type === 'email' && checked[q.key] !== undefined)
    const email =
      (body.email as string | null | undefined) ??
      (emailQuestion ? (checked[emailQuestion.key] as string) : null)
    const name =
      (body.name as string | null | undefined) ??
      (typeof checked.name === 'string' ? checked.name.slice(0, 200) : null)
    const student = email
      ? await db.selectFrom('students').select('id').where('email', '=', email).executeTakeFirst()
      : undefined

    const id = deps.random.id(formSubmissions.idPrefix)
    await db.transaction().execute(async (trx) => {
      await trx
        .insertInto('form_submissions')
        .values({
          id,
          form_id: form.id,
          email,
          name,
          student_id: student?.id ?? null,
          answers: JSON.stringify(checked),
          source_url: (body.source_url as string | null | undefined) ?? null,
          utm: body.utm ? JSON.stringify(body.utm) : null,
          submitted_at: now,
          created_at: now,
          updated_at: now,
        })
        .execute()
      // Submitted with a token: an app's change like any other (the answers named, not copied).
      if (caller.kind === 'token')
        await recordChange(
          { deps, db: trx, caller, now },
          {
            operation,
            recordType: formSubmissions.object,
            recordId: id,
            changes: [{ field: 'form_id', after: form.id }, { field: 'answers' }],
          },
        )
    })
    const row = await db
      .selectFrom('form_submissions')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
    return {
      ...jsonAnswer(submission.show({ ...row, success_message: form.success_message }), {
        status: 201,
      }),
      location: `${deps.config.issuer}/api/v1/form_submissions/${id}`,
    }
  },
})
