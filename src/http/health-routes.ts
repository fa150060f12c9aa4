import type { RouteModule } from './deps.js'

const healthSchema = {
  type: 'object',
  required: ['status'],
  properties: { status: { type: 'string', enum: ['ok', 'unavailable'] } },
}

/** `/healthz`: the process answers. `/readyz`: and its database (and Redis, if used) do too. */
export const healthRoutes: RouteModule = {
  openapi: {
    '/healthz': {
      get: {
        operationId: 'getHealth',
        summary: 'Liveness: the process is up',
        tags: ['operations'],
        responses: {
          '200': {
            description: 'Alive',
            content: { 'application/json': { schema: healthSchema } },
          },
        },
      },
    },
    '/readyz': {
      get: {
        operationId: 'getReadiness',
        summary: 'Readiness: the database (and Redis, when configured) is reachable',
        tags: ['operations'],
        responses: {
          '200': {
            description: 'Ready',
            content: { 'application/json': { schema: healthSchema } },
          },
          '503': {
            description: 'The database (or Redis) does not answer',
            content: { 'application/json': { schema: healthSchema } },
          },
        },
      },
    },
  },
  register(app, deps) {
    app.get('/healthz', async (_request, reply) =>
      reply.header('cache-control', 'no-store').send({ status: 'ok' }),
    )
    app.get('/readyz', async (_request, reply) => {
      const [database, counters] = await Promise.all([
        deps.database.ping(),
        deps.rateLimiter.ping(),
      ])
      const ready = database && counters
      return reply
        .code(ready ? 200 : 503)
        .header('cache-control', 'no-store')
        .send({ status: ready ? 'ok' : 'unavailable' })
    })
  },
}
