import type { JsonSchema } from './fields.js'
import { shown, view } from './views.js'

/** One refused member of a request (422): `errors[]` of a problem. */
const fieldError = view({ field: shown.string(), code: shown.string(), message: shown.string() })

/**
 * RFC 9457 problem details, the error answer of everything that is not an OAuth endpoint
 * (src/api/problem.ts builds it): declared once, named `Problem` in the OpenAPI document.
 */
export const problemView = view(
  {
    type: shown.string(),
    status: shown.integer(),
    title: shown.string(),
    detail: shown.string(),
    code: shown.string(),
    request_id: shown.string(),
    error: shown.string({
      description:
        'On a refused bearer token: the RFC 6750 error code (invalid_token, insufficient_scope, invalid_request)',
    }),
    required_scopes: shown.list(shown.string(), {
      description: 'With insufficient_scope: the scope the operation needs',
    }),
    referenced_by: shown.list(shown.string(), {
      description: 'With conflict on a file delete: the records that use the file',
    }),
    errors: shown.list(fieldError),
    approval_url: shown.string({
      description:
        'With approval_required: the page (absolute URL) where the approver says yes or no; then repeat the same request',
    }),
    approval_id: shown.string({
      description: 'With approval_required and approval_refused: the approval (apr_…)',
    }),
    expires_at: shown.string({
      description:
        'With approval_required: when the approval lapses (RFC 3339); with approval_refused: until when the same request stays refused',
    }),
    confirmation: shown.string({
      description:
        'With approval_required: who must say yes, person (the person the token acts for) or owner (an owner or admin)',
    }),
  },
  {
    required: ['type', 'status', 'title', 'code'],
    description: 'RFC 9457 problem details',
  },
)

/** The JSON Schema of a problem (the `Problem` component). */
export const problemSchema: JsonSchema = problemView.schema

/** An OpenAPI response answered as RFC 9457 problem details. */
export const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
})

/** The OpenAPI responses of problem statuses: status → what it means here. */
export const problemResponses = (
  statuses: Readonly<Record<string, string>>,
): Record<string, ReturnType<typeof problemResponse>> =>
  Object.fromEntries(
    Object.entries(statuses).map(([status, description]) => [status, problemResponse(description)]),
  )
