import { buildOpenApiDocument } from '../api/openapi.js'
import type { RouteModule } from './deps.js'

/** `/openapi.json`: the OpenAPI 3.1 description of every registered route module. */
export const openapiRoutes: RouteModule = {
  openapi: {
    '/openapi.json': {
      get: {
        operationId: 'getOpenApiDocument',
        summary: 'This OpenAPI document',
        tags: ['discovery'],
        responses: {
          '200': {
            description: 'OpenAPI 3.1 document',
            content: { 'application/json': { schema: { type: 'object' } } },
          },
        },
      },
    },
  },
  register(app, deps, context) {
    const body = JSON.stringify(
      buildOpenApiDocument(deps.config.issuer, context.openapi, context.advertised),
    )
    app.get('/openapi.json', async (_request, reply) =>
      reply.header('cache-control', 'public, max-age=300').type('application/json').send(body),
    )
  },
}
