import type { AppDeps } from '../../app-deps.js'
import type { Role } from '../../oauth/roles.js'
import { ACTIVITY_ROLES, activityEndpoint } from '../activity/activity-endpoint.js'
import type { Caller } from '../caller.js'
import { defineEndpoint, jsonAnswer } from '../framework/endpoint.js'
import { pathOf } from '../framework/resource.js'
import { shown, view } from '../framework/views.js'
import { RESOURCES } from '../registry.js'

/** A collection the index lists: the scopes it needs, and the roles it is for, when fewer. */
interface Collection {
  readonly name: string
  readonly path: string
  readonly read?: string
  readonly write?: string
  /** Listed only to a person of these roles (the activity record: owners and admins). */
  readonly roles?: readonly Role[]
}

/** The collections the API serves, with the scopes each needs; the index lists them. */
const COLLECTIONS: readonly Collection[] = [
  { name: 'account', path: '/api/v1/account', read: 'account:read', write: 'account:write' },
  ...RESOURCES.map((r) => ({
    name: r.collection,
    path: pathOf(r),
    read: r.scopes.read,
    write: r.scopes.write,
  })),
  {
    name: 'activity',
    path: activityEndpoint.path,
    ...(activityEndpoint.scope && { read: activityEndpoint.scope }),
    roles: ACTIVITY_ROLES,
  },
]

const callerView = view<Record<string, unknown>>(
  {
    kind: shown.string({ enum: ['anonymous', 'team', 'learner'] }),
    role: shown.string(),
    user_id: shown.string(),
    client_id: shown.string(),
  },
  {
    required: ['kind'],
    description: 'Who is calling: anonymous, or the token’s person (team or learner) and client',
  },
)

const collectionView = view<Record<string, unknown>>(
  {
    name: shown.string(),
    href: shown.string({ format: 'uri' }),
    scopes: shown.object(view({ read: shown.string(), write: shown.string() })),
    can_read: shown.boolean(),
    can_write: shown.boolean(),
  },
  { required: ['name', 'href', 'scopes', 'can_read', 'can_write'] },
)

/** What GET /api/v1 answers. */
const index = view<Record<string, unknown>>(
  {
    object: shown.constant('api_index'),
    school: shown.object(view({ name: shown.string() }, { required: ['name'] })),
    caller: shown.object(callerView),
    scopes: shown.list(shown.string(), {
      description: 'The scopes the token holds and the person’s role allows',
    }),
    collections: shown.list(collectionView),
    documentation: shown.string({ format: 'uri', description: 'This OpenAPI document' }),
    resource_metadata: shown.string({
      format: 'uri',
      description: 'The protected resource metadata (RFC 9728)',
    }),
  },
  { required: ['object', 'school', 'caller', 'scopes', 'collections', 'documentation'] },
)

async function indexOf(deps: AppDeps, caller: Caller): Promise<Record<string, unknown>> {
  const granted = caller.kind === 'token' ? caller.scopes : new Set<string>()
  return index.show({
    school: { name: await deps.school.name() },
    caller:
      caller.kind === 'anonymous'
        ? { kind: 'anonymous' }
        : {
            kind: caller.user.role === 'student' ? 'learner' : 'team',
            role: caller.user.role,
            user_id: caller.user.id,
            client_id: caller.clientId,
          },
    scopes: [...granted],
    collections: COLLECTIONS.filter(
      (c) => !c.roles || (caller.kind === 'token' && c.roles.includes(caller.user.role)),
    ).map((c) => ({
      name: c.name,
      href: `${deps.config.issuer}${c.path}`,
      scopes: { ...(c.read && { read: c.read }), ...(c.write && { write: c.write }) },
      can_read: c.read !== undefined && granted.has(c.read),
      can_write: c.write !== undefined && granted.has(c.write),
    })),
    documentation: `${deps.config.issuer}/openapi.json`,
    resource_metadata: `${deps.config.issuer}/.well-known/oauth-protected-resource`,
  })
}

/**
 * The API index: the school, who is calling with which scopes, and every collection with
 * what the token may do there. Over MCP, `school_overview`: an agent's first look at the
 * school and at its own access.
 */
export const apiIndexEndpoint = defineEndpoint({
  name: 'school.overview',
  method: 'GET',
  path: '/api/v1',
  operationId: 'getApiIndex',
  summary: 'API index: the school, who is calling, granted scopes, and every collection',
  tags: ['api'],
  public: true,
  output: { description: 'The index', schema: index.schema },
  problems: {
    '401': 'Invalid token',
    '429': 'Too many requests without a token from this address',
  },
  async run({ deps, caller }) {
    return jsonAnswer(await indexOf(deps, caller))
  },
})
