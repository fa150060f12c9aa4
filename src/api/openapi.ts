import { describeScope } from '../oauth/authorize/scope-labels.js'
import type { AdvertisedEndpoint } from '../oauth/discovery.js'
import { ALL_SCOPES } from '../oauth/scopes.js'
import { resourceSchemas } from './framework/openapi.js'
import { problemSchema } from './framework/problem-response.js'
import type { OpenApiPaths } from './openapi-paths.js'
import { RESOURCES } from './registry.js'

/** Assembles the OpenAPI 3.1 document from the path items the route modules declare. */
export function buildOpenApiDocument(
  issuer: string,
  paths: OpenApiPaths,
  advertised: Readonly<Partial<Record<AdvertisedEndpoint, string>>>,
): Record<string, unknown> {
  const authorizationUrl = advertised.authorization_endpoint
  const tokenUrl = advertised.token_endpoint
  const sorted = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b)))
  return {
    openapi: '3.1.0',
    info: {
      title: 'Portico',
      version: '1',
      description: 'Authorization server and developer API of an online school.',
    },
    servers: [{ url: issuer }],
    paths: sorted,
    components: {
      schemas: {
        ...resourceSchemas(RESOURCES),
        Problem: problemSchema,
      },
      // Named only when both endpoints are registered, like everything the documents advertise.
      securitySchemes:
        authorizationUrl && tokenUrl
          ? {
              oauth2: {
                type: 'oauth2',
                flows: {
                  authorizationCode: {
                    authorizationUrl,
                    tokenUrl,
                    refreshUrl: tokenUrl,
                    scopes: Object.fromEntries(ALL_SCOPES.map((s) => [s, describeScope(s).label])),
                  },
                },
              },
            }
          : {},
    },
  }
}
