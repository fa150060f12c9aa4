import { HttpClient, type Reply } from './http.js'
import type { RequestLoad } from './load-protocol.js'
import type { Person, Prepared } from './prepare.js'
import type { Scenario } from './scenarios.js'
import type { RunningServer, ServerKind } from './servers.js'

/**
 * Before a scenario is measured on the limit server, a sample of its requests goes to both
 * servers and the answers must agree: the same status, the same JSON (compared as parsed,
 * then serialised again, so key order counts as in the ETag), the same key headers. A limit
 * server that did less than Portico would not pass.
 */

/** Requests of the sample, per server (and pool items a pool scenario makes for it). */
export const SAMPLE = 3

/**
 * Values each answer makes anew (the tokens of a refresh): compared by their form, the prefix
 * and the length, not their value.
 */
const FRESH_VALUES = new Set(['access_token', 'refresh_token'])

/** Headers that must be equal (x-request-id must be there, each its own). */
const KEY_HEADERS = [
  'content-type',
  'etag',
  'cache-control',
  'data-visibility',
  'vary',
  'x-content-type-options',
  'access-control-allow-origin',
  'access-control-expose-headers',
] as const

/** What differs; `portico`: Portico does not answer as the scenario expects at all. */
export interface Difference {
  readonly portico: boolean
  readonly detail: string
}

/**
 * Compares, on a sample, the limit server's answers with Portico's for every scenario both
 * run; by scenario id, what differs (undefined: they agree).
 */
export async function checkLimitServer(
  scenarios: readonly Scenario[],
  servers: ReadonlyMap<ServerKind, RunningServer>,
  portico: Prepared | undefined,
  person: Person,
): Promise<Record<string, Difference | undefined>> {
  const checks: Record<string, Difference | undefined> = {}
  const porticoServer = servers.get('portico')
  const limit = servers.get('limit')
  if (!porticoServer || !limit) return checks
  for (const scenario of scenarios) {
    if (!scenario.servers.includes('limit')) continue
    const loadOf = async (kind: ServerKind, origin: string) => {
      const load = await scenario.load(
        { server: kind, origin, prepared: portico, person },
        scenario.pool ? SAMPLE : 0,
        1,
      )
      if (load.kind !== 'request')
        throw new Error(`${scenario.id}: the limit server serves single requests`)
      return load
    }
    const difference: Difference | undefined = await loadOf('portico', porticoServer.origin).then(
      async (load) =>
        compareAnswers(
          porticoServer.origin,
          load,
          limit.origin,
          await loadOf('limit', limit.origin),
        ),
      (error: unknown) => ({
        // The conditional scenario reads the ETag first; a server without one cannot run it.
        portico: true,
        detail: `Portico answers without what the scenario needs: ${error instanceof Error ? error.message : String(error)}`,
      }),
    )
    checks[scenario.id] = difference
    console.log(`limit check ${scenario.id}: ${difference?.detail ?? 'same answers'}`)
  }
  return checks
}

/** Undefined when the two servers answer alike; otherwise what differs. */
export async function compareAnswers(
  porticoOrigin: string,
  porticoLoad: RequestLoad,
  limitOrigin: string,
  limitLoad: RequestLoad,
): Promise<Difference | undefined> {
  const portico = new HttpClient(porticoOrigin, 1)
  const limit = new HttpClient(limitOrigin, 1)
  const ask = (http: HttpClient, load: RequestLoad, i: number) => {
    const body = bodyOf(load, i)
    return http.request(load.method, load.path, {
      headers: load.headers,
      ...(body !== undefined && { body }),
    })
  }
  try {
    for (let i = 0; i < SAMPLE; i += 1) {
      const difference = differenceOf(
        await ask(portico, porticoLoad, i),
        await ask(limit, limitLoad, i),
        porticoLoad.expect,
      )
      if (difference)
        return {
          portico: difference.startsWith('Portico answers'),
          detail: `${porticoLoad.method} ${porticoLoad.path}: ${difference}`,
        }
    }
    return undefined
  } finally {
    portico.close()
    limit.close()
  }
}

/** The i-th request's body: the load's, or its template filled from the i-th pool item. */
function bodyOf(load: RequestLoad, i: number): string | undefined {
  if (!load.pool) return load.body
  const item = load.pool.items[i]
  if (!item) throw new Error(`${load.path}: the sample needs ${SAMPLE} pool items`)
  return load.pool.template.replace(/\{(\d)\}/g, (_, at) => item[Number(at)] ?? '')
}

function differenceOf(portico: Reply, limit: Reply, expect: number): string | undefined {
  if (portico.status !== expect)
    return `Portico answers ${portico.status}, the scenario expects ${expect}`
  if (portico.status !== limit.status)
    return `status ${portico.status} at Portico, ${limit.status} at the limit server`
  for (const name of KEY_HEADERS) {
    if (portico.headers[name] !== limit.headers[name])
      return `${name}: ${portico.headers[name]} at Portico, ${limit.headers[name]} at the limit server`
  }
  if (!portico.headers['x-request-id'] || !limit.headers['x-request-id'])
    return 'an answer without x-request-id'
  if (portico.body === '' && limit.body === '') return undefined
  const normal = (body: string) => {
    try {
      return JSON.stringify(JSON.parse(body), (key, value) =>
        FRESH_VALUES.has(key) && typeof value === 'string'
          ? `${value.slice(0, value.indexOf('_') + 1)}… (${value.length} characters)`
          : value,
      )
    } catch {
      return `(not JSON) ${body}`
    }
  }
  const [a, b] = [normal(portico.body), normal(limit.body)]
  if (a === b) return undefined
  let at = 0
  while (at < a.length && a[at] === b[at]) at += 1
  return `bodies differ at character ${at}: Portico …${a.slice(Math.max(0, at - 40), at + 60)}… limit server …${b.slice(Math.max(0, at - 40), at + 60)}…`
}
