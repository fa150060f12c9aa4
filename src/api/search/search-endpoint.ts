import type { AppDeps } from '../../app-deps.js'
import { defineEndpoint, jsonAnswer } from '../framework/endpoint.js'
import { queryMember, queryText } from '../framework/endpoint-query.js'
import { integer } from '../framework/fields.js'
import { searchableOf } from '../framework/list-params.js'
import type { ApiOperation } from '../framework/operation.js'
import type { ResourceDefinition } from '../framework/resource.js'
import { resourceOperations } from '../framework/resource-operations.js'
import { shown, view } from '../framework/views.js'
import { ProblemError } from '../problem.js'
import { RESOURCES } from '../registry.js'

/** Records each collection answers at most, and the default. */
const MOST = 20
const DEFAULT = 5

/** The collections searched: those whose declarations say which fields `q` searches. */
const SEARCHED: readonly ResourceDefinition[] = RESOURCES.filter(
  (r) => r.operations.includes('list') && searchableOf(r).length > 0,
)

/** Each collection's list, bound once per application (the search runs them as they are). */
const lists = new WeakMap<AppDeps, ReadonlyMap<ResourceDefinition, ApiOperation>>()
function listsOf(deps: AppDeps): ReadonlyMap<ResourceDefinition, ApiOperation> {
  let bound = lists.get(deps)
  if (!bound) {
    bound = new Map(
      SEARCHED.flatMap((resource) => {
        const list = resourceOperations(resource, deps).find(
          (op) => op.name === `${resource.collection}.list`,
        )
        return list ? [[resource, list] as const] : []
      }),
    )
    lists.set(deps, bound)
  }
  return bound
}

const found = view<Record<string, unknown>>(
  {
    collection: shown.string(),
    id: shown.string(),
    object: shown.string(),
    label: shown.string({
      description: 'The first searched field the record has (its title, name …)',
    }),
    status: shown.string(),
  },
  { required: ['collection', 'id', 'object', 'label'] },
)

const answer = view<Record<string, unknown>>(
  {
    object: shown.constant('search_results'),
    q: shown.string(),
    results: shown.list(found),
    not_searched: shown.list(
      view({ collection: shown.string(), scope: shown.string() }, { required: ['collection'] }),
      {
        description:
          'Collections the token holds no read scope for (their public records are searched where they have any)',
      },
    ),
  },
  { required: ['object', 'q', 'results', 'not_searched'] },
)

/**
 * Finds records across the school by text: each collection whose declaration names searched
 * fields is listed with `q`, as its own list answers it (the caller's scopes, role and the
 * public projection decide what each shows), and the first few of each are answered.
 */
export const searchEndpoint = defineEndpoint({
  name: 'search.records',
  method: 'GET',
  path: '/api/v1/search',
  operationId: 'searchRecords',
  summary: 'Find records across the school by text',
  description:
    'Searches every collection that takes q (courses, lessons, students, orders, events, posts …) with the same rules as its own list, and answers the first records of each with their collection, id and label.',
  tags: ['search'],
  public: true,
  query: {
    q: { ...queryText({ required: true, description: 'The text to find (case-insensitive)' }) },
    limit: queryMember(
      {
        ...integer({
          min: 1,
          max: MOST,
          description: `Records per collection (default ${DEFAULT})`,
        }),
        parseQuery: (raw) => {
          const n = /^\d{1,2}$/.test(raw) ? Number(raw) : Number.NaN
          return n >= 1 && n <= MOST ? n : undefined
        },
      },
      'range',
      `limit must be 1 to ${MOST}`,
    ),
  },
  output: { description: 'The records found', schema: answer.schema },
  problems: {
    '401': 'Invalid token',
    '422': 'q is missing, empty or over 200 characters, or limit is out of range',
    '429': 'Too many requests without a token from this address',
  },
  async run({ deps, caller, query, input }) {
    const q = String(query.q).trim()
    if (q.length === 0 || q.length > 200)
      throw new ProblemError(422, {
        code: 'validation_failed',
        title: 'Unprocessable Content',
        detail: 'q must hold 1 to 200 characters',
        errors: [{ field: 'q', code: 'length', message: 'q must hold 1 to 200 characters' }],
      })
    const limit = String(typeof query.limit === 'number' ? query.limit : DEFAULT)
    const results: Record<string, unknown>[] = []
    const notSearched: Record<string, unknown>[] = []
    for (const [resource, list] of listsOf(deps)) {
      const granted = caller.kind === 'token' && caller.scopes.has(resource.scopes.read)
      if (!granted)
        notSearched.push({ collection: resource.collection, scope: resource.scopes.read })
      if (!granted && !resource.public) continue
      let page: { data?: Array<Record<string, unknown>> }
      try {
        const answered = await list.run({ ...input, caller, params: {}, query: { q, limit } })
        page = (answered.json ? JSON.parse(answered.json) : answered.body) as typeof page
      } catch (error) {
        // A list this caller may not search (the role's, a public projection without q).
        if (error instanceof ProblemError && error.status < 500) continue
        throw error
      }
      const labels = searchableOf(resource)
      for (const record of page.data ?? []) {
        const label = labels.map((name) => record[name]).find((v) => typeof v === 'string')
        results.push({
          collection: resource.collection,
          id: record.id,
          object: record.object,
          label: label ?? record.id,
          ...(typeof record.status === 'string' && { status: record.status }),
        })
      }
    }
    return jsonAnswer(answer.show({ q, results, not_searched: notSearched }))
  },
})
