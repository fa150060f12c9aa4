/** RFC 9457 problem details, the error format of everything that is not an OAuth endpoint. */
export interface ProblemFields {
  readonly code: string
  readonly title: string
  readonly detail?: string
  readonly errors?: ReadonlyArray<{ field: string; code: string; message: string }>
  readonly [extra: string]: unknown
}

/** A failure answered as `application/problem+json`. */
export class ProblemError extends Error {
  override name = 'ProblemError'
  readonly status: number
  readonly fields: ProblemFields
  readonly headers: Readonly<Record<string, string>>

  constructor(
    status: number,
    fields: ProblemFields,
    headers: Readonly<Record<string, string>> = {},
  ) {
    super(fields.detail ?? fields.title)
    this.status = status
    this.fields = fields
    this.headers = headers
  }
}

export function problemBody(
  status: number,
  fields: ProblemFields,
  requestId: string,
): Record<string, unknown> {
  return {
    type: `https://portico.dev/problems/${fields.code.replaceAll('_', '-')}`,
    status,
    ...fields,
    request_id: requestId,
  }
}
