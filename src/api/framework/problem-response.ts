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
