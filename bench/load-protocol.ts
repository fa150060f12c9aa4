/**
 * What the orchestrator asks of the load generator (bench/load.ts, a separate process
 * pinned to its own core) and what it answers. Everything here crosses an IPC channel as
 * JSON.
 */

/** One request repeated: the same bytes every time, or a body filled from a pool. */
export interface RequestLoad {
  readonly kind: 'request'
  readonly method: 'GET' | 'POST'
  readonly path: string
  readonly headers: Record<string, string>
  readonly body?: string
  /** The status every answer must have. */
  readonly expect: number
  /** Text every answer's body must contain (e.g. `"active":true`). */
  readonly bodyIncludes?: string
  /** The Location every answer must carry (a sign-in's redirect). */
  readonly locationIs?: string
  /**
   * A body template whose `{0}`, `{1}`… are replaced by the fields of the next pool item,
   * already form-encoded: every request consumes one item, never reused.
   */
  readonly pool?: { readonly template: string; readonly items: readonly (readonly string[])[] }
  /** Keep the refresh tokens the answers carry (never used: a pool for the refresh scenario). */
  readonly harvest?: boolean
}

/** A full authorization, several requests per operation, driven by the answers. */
export interface FlowLoad {
  readonly kind: 'flow'
  readonly flow: 'portico' | 'oidc-provider'
  /** The authorization request path, with its query (PKCE challenge, state, scope…). */
  readonly authorizePath: string
  /**
   * Cookies of signed-in browsers, at least three per connection: each authorizes once at a
   * time, and those caught mid-authorization when a phase ends are not used again.
   */
  readonly browsers: readonly string[]
  readonly tokenPath: string
  readonly clientId: string
  readonly redirectUri: string
  readonly verifier: string
}

export type Load = RequestLoad | FlowLoad

export interface LoadJob {
  readonly origin: string
  readonly connections: number
  readonly warmupSeconds: number
  /** Measure for this long; or, with `amount`, until that many requests have been answered. */
  readonly durationSeconds: number
  readonly amount?: number
  readonly load: Load
  /** Send every measured latency back (`LoadResult.latencies`), to merge a sliced measurement's. */
  readonly keepLatencies?: boolean
}

export interface LoadFailure {
  readonly step: string
  readonly status: number
  readonly detail: string
}

export interface LoadResult {
  /** Operations completed in the measured window (a flow counts once, when it ends). */
  readonly operations: number
  /** HTTP requests answered in the measured window. */
  readonly requests: number
  readonly seconds: number
  /** Latency of single requests in the measured window, milliseconds. */
  readonly latency: { readonly p50: number; readonly p99: number; readonly max: number }
  /** Every measured latency, milliseconds, when the job asked for them. */
  readonly latencies?: readonly number[]
  /** Answers other than the expected ones, connection errors and time-outs (warm-up included). */
  readonly failures: number
  readonly failureSamples: readonly LoadFailure[]
  /** The pool ran out before the time was up: the measurement is void, retry with more. */
  readonly exhausted: boolean
  /** Pool items consumed, warm-up included. */
  readonly consumed: number
  /** CPU the load generator itself used in the measured window, milliseconds. */
  readonly loaderCpuMs: number
  /** Refresh tokens issued in the answers and never used (token requests, flows). */
  readonly harvest: readonly string[]
}

export type ToLoader =
  | { readonly type: 'job'; readonly id: number; readonly job: LoadJob }
  | { readonly type: 'go'; readonly id: number }

export type FromLoader =
  | { readonly type: 'warmed'; readonly id: number }
  | { readonly type: 'done'; readonly id: number; readonly result: LoadResult }
  | { readonly type: 'error'; readonly id: number; readonly message: string }
