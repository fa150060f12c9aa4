import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'

/** Connections of a PostgreSQL pool, and requests waiting for one. */
export interface PoolUse {
  readonly max: number
  readonly total: number
  readonly idle: number
  readonly waiting: number
}

export type RefreshOutcome = 'rotated' | 'refused' | 'replayed'
export type RevocationSource = 'revocation_endpoint' | 'account_page' | 'replay_detected'
export type SignInFailure = 'credentials' | 'throttled'

/**
 * What Portico counts for Prometheus. The HTTP modules call these methods; only the
 * registry knows about prom-client. Each app has a registry of its own, never the global
 * one, so several apps in one process (the tests) do not mix their numbers.
 */
export interface Metrics {
  readonly registry: Registry
  requestServed(method: string, route: string, status: number, seconds: number): void
  tokensIssued(grantType: string): void
  refreshed(outcome: RefreshOutcome): void
  revoked(source: RevocationSource, grants?: number): void
  signInFailed(reason: SignInFailure): void
}

export interface MetricsOptions {
  /** The database pool to report on. */
  readonly poolUse: () => PoolUse | undefined
  /** Also the process's own metrics (memory, CPU, event loop); only where they are served. */
  readonly processMetrics: boolean
}

/** Creates the metrics of one app with a registry of its own. */
export function createMetrics(options: MetricsOptions): Metrics {
  const registry = new Registry()
  if (options.processMetrics) collectDefaultMetrics({ register: registry })
  const registers = [registry]

  const requests = new Counter({
    name: 'portico_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
  })
  const durations = new Histogram({
    name: 'portico_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method and route pattern',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  })
  const tokens = new Counter({
    name: 'portico_tokens_issued_total',
    help: 'Token responses issued by the token endpoint, by grant type',
    labelNames: ['grant_type'] as const,
    registers,
  })
  const refreshes = new Counter({
    name: 'portico_token_refreshes_total',
    help: 'Refresh-token requests: rotated, refused, or a replay that revoked its grant',
    labelNames: ['outcome'] as const,
    registers,
  })
  const revocations = new Counter({
    name: 'portico_grant_revocations_total',
    help: 'Grants and tokens revoked, by where the revocation came from',
    labelNames: ['source'] as const,
    registers,
  })
  const signInFailures = new Counter({
    name: 'portico_sign_in_failures_total',
    help: 'Failed sign-ins: wrong credentials, or refused while throttled',
    labelNames: ['reason'] as const,
    registers,
  })
  new Gauge({
    name: 'portico_db_pool_connections',
    help: 'PostgreSQL pool connections by state (max: the pool size)',
    labelNames: ['state'] as const,
    registers,
    collect() {
      const use = options.poolUse()
      if (!use) return
      this.set({ state: 'max' }, use.max)
      this.set({ state: 'open' }, use.total)
      this.set({ state: 'idle' }, use.idle)
      this.set({ state: 'in_use' }, use.total - use.idle)
    },
  })
  new Gauge({
    name: 'portico_db_pool_waiting_requests',
    help: 'Queries waiting for a PostgreSQL pool connection',
    registers,
    collect() {
      this.set(options.poolUse()?.waiting ?? 0)
    },
  })

  return {
    registry,
    requestServed(method, route, status, seconds) {
      requests.inc({ method, route, status: String(status) })
      durations.observe({ method, route }, seconds)
    },
    tokensIssued: (grantType) => tokens.inc({ grant_type: grantType }),
    refreshed: (outcome) => refreshes.inc({ outcome }),
    revoked: (source, grants = 1) => revocations.inc({ source }, grants),
    signInFailed: (reason) => signInFailures.inc({ reason }),
  }
}
