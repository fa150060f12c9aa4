/** An OpenAPI 3.1 path item, kept loose: the document is validated as a whole in tests. */
export type OpenApiPaths = Record<string, Record<string, unknown>>
