import { buildOpenApiDocument } from '../api/openapi.js'
import { ROUTE_MODULES } from './app.js'
import type { AppContext } from './deps.js'

/** The issuer the checked-in openapi.json is written for. */
const DOCUMENT_ISSUER = 'https://school.example'

/**
 * The OpenAPI document every route module declares, as `GET /openapi.json` serves it, for an
 * issuer: `portico openapi` prints it and a test compares it with the checked-in copy.
 */
export function openApiDocumentFor(issuer: string = DOCUMENT_ISSUER): Record<string, unknown> {
  const advertised: Record<string, string> = {}
  const paths: AppContext['openapi'] = {}
  for (const module of ROUTE_MODULES) {
    for (const [key, path] of Object.entries(module.advertises ?? {}))
      advertised[key] = `${issuer}${path}`
    Object.assign(paths, module.openapi)
  }
  return buildOpenApiDocument(issuer, paths, advertised)
}
