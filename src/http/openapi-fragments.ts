/** OpenAPI response for an OAuth error body (RFC 6749 §5.2), shared by the OAuth endpoints. */
export function oauthErrorResponse(
  description = 'OAuth error (RFC 6749 §5.2)',
): Record<string, unknown> {
  return {
    description,
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['error'],
          properties: { error: { type: 'string' }, error_description: { type: 'string' } },
        },
      },
    },
  }
}
