import type { FastifyInstance } from 'fastify'
import type { AppDeps } from '../../app-deps.js'
import {
  type FieldError,
  requireJsonContent,
  requireObject,
  validationFailed,
} from '../conventions.js'
import { resourcePaths } from '../framework/openapi.js'
import { viewOf } from '../framework/resource.js'
import { checkMembers, membersSchema } from '../framework/structures.js'
import type { OpenApiPaths } from '../openapi-paths.js'
import { ProblemError } from '../problem.js'
import { checkAnswers, fieldsOf, formSubmissions, SUBMISSION_MEMBERS } from './forms.js'

const SUBMISSIONS = '/api/v1/forms/:form_id/submissions'
const SUBMISSIONS_DOC = '/api/v1/forms/{form_id}/submissions'
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

/**
 * `POST /api/v1/forms/{id}/submissions`: anyone may submit an active form, with or without a
 * token (DOMAIN.md §4.5). Rate-limited per client address, validated against the form's
 * questions. The learner with the submitted e-mail is linked as `student_id`, but the answer
 * never says whether one exists (no account discovery), and no account is ever created.
 */
export function registerFormSubmissionRoutes(api: FastifyInstance, deps: AppDeps): void {
  const db = deps.database.db
  api.post(SUBMISSIONS, { bodyLimit: SUBMISSION_BODY_LIMIT }, async (request, reply) => {
    const now = deps.clock.now()
    await limitSubmissions(deps, request.ip, now)
    requireJsonContent(request.headers['content-type'])
    const body = requireObject(request.body)
    const { form_id: formId } = request.params as { form_id: string }
    // A closed form is not public: the same 404 as for one that never existed.
    const form = await db
      .selectFrom('forms')
      .selectAll()
      .where('id', '=', formId)
      .where('status', '=', 'active')
      .executeTakeFirst()
    if (!form)
      throw new ProblemError(404, {
        code: 'not_found',
        title: 'Not Found',
        detail: 'no active form with this id',
      })

    const errors: FieldError[] = []
    const { answers: given, ...rest } = body
    const members = checkMembers(SUBMISSION_MEMBERS, rest, 'body', errors) ?? {}
    const questions = fieldsOf(form.fields)
    if (given === undefined)
      errors.push({ field: 'answers', code: 'required', message: 'answers is required' })
    const answers = given === undefined ? undefined : checkAnswers(questions, given, errors)
    if (errors.length > 0 || !answers)
      throw validationFailed(errors.map((e) => ({ ...e, field: e.field.replace(/^body\./, '') })))

    // The contact of the submission: given beside the answers, or the form's own questions.
    const emailQuestion = questions.find((q) => q.type === 'email' && answers[q.key] !== undefined)
    const email =
      (members.email as string | null | undefined) ??
      (emailQuestion ? (answers[emailQuestion.key] as string) : null)
    const name =
      (members.name as string | null | undefined) ??
      (typeof answers.name === 'string' ? answers.name.slice(0, 200) : null)
    const student = email
      ? await db.selectFrom('students').select('id').where('email', '=', email).executeTakeFirst()
      : undefined

    const id = deps.random.id(formSubmissions.idPrefix)
    await db
      .insertInto('form_submissions')
      .values({
        id,
        form_id: form.id,
        email,
        name,
        student_id: student?.id ?? null,
        answers: JSON.stringify(answers),
        source_url: (members.source_url as string | null | undefined) ?? null,
        utm: members.utm ? JSON.stringify(members.utm) : null,
        submitted_at: now,
        created_at: now,
        updated_at: now,
      })
      .execute()
    const row = await db
      .selectFrom('form_submissions')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
    const { student_id: _studentId, ...view } = viewOf(formSubmissions, row, true, deps)
    return reply
      .code(201)
      .header('cache-control', 'no-store')
      .header('location', `${deps.config.issuer}/api/v1/form_submissions/${id}`)
      .send({ ...view, success_message: form.success_message })
  })
}

const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
})

const submissionSchema = membersSchema(SUBMISSION_MEMBERS)

/** The submissions path: the framework's list (forms:read) and the anonymous submit. */
export const formSubmissionPaths: OpenApiPaths = {
  [SUBMISSIONS_DOC]: {
    ...resourcePaths(formSubmissions)[SUBMISSIONS_DOC],
    post: {
      operationId: 'submitForm',
      summary: 'Submit an active form (no token needed; rate-limited per client address)',
      tags: ['form_submissions'],
      security: [{}, { oauth2: [] }],
      parameters: [{ name: 'form_id', in: 'path', required: true, schema: { type: 'string' } }],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              ...submissionSchema,
              required: ['answers'],
              properties: {
                answers: {
                  type: 'object',
                  description:
                    'Field key → answer, checked against the form’s fields (type, required, options)',
                },
                ...(submissionSchema.properties as object),
              },
            },
          },
        },
      },
      responses: {
        '201': {
          description: 'Accepted: the submission and the form’s success message',
          headers: { Location: { schema: { type: 'string' } } },
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  id: { type: 'string', pattern: '^fsub_' },
                  object: { const: 'form_submission' },
                  form_id: { type: 'string' },
                  email: { type: ['string', 'null'] },
                  name: { type: ['string', 'null'] },
                  answers: { type: 'object' },
                  source_url: { type: ['string', 'null'] },
                  utm: { type: ['object', 'null'] },
                  submitted_at: { type: 'string', format: 'date-time' },
                  success_message: { type: ['string', 'null'] },
                },
              },
            },
          },
        },
        '400': problem('The body is not a JSON object'),
        '401': problem('An invalid token (none is needed)'),
        '404': problem('No active form with this id (closed forms take no submissions)'),
        '413': problem('The body is too large'),
        '415': problem('The body is not application/json'),
        '422': problem('Validation failed: errors names each field, answers.<key> for answers'),
        '429': problem('Too many submissions from this address; see Retry-After'),
      },
    },
  },
}
