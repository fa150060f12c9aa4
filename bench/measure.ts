import type { Load, LoadJob, LoadResult } from './load-protocol.js'
import type { Loader } from './loader.js'
import type { Options } from './options.js'
import type { Person, Prepared } from './prepare.js'
import { latencySummary, type Measurement } from './report.js'
import type { Scenario, ScenarioContext } from './scenarios.js'
import type { RunningServer, ServerKind } from './servers.js'
import { cpuMs, sampleRss } from './system.js'

/**
 * Measuring a scenario on a server: a pool sized from the rate seen (after a short probe the
 * first time), one job on the load generator, and the server's CPU and memory read around it.
 */

/** Pools are made for this many times the expected consumption… */
const POOL_MARGIN = 1.25
/** …and more the first time, when the rate comes from a short probe of a colder server. */
const FIRST_POOL_MARGIN = 2.2
/** Requests of that probe. */
const PROBE_REQUESTS = 1000
/** Codes live 60 s: a pool must be made and used well within that. */
const CODE_POOL_DEADLINE_S = 50
/** Warm-up of every slice after the first: the load generator's connections made anew. */
const SLICE_WARMUP_S = 0.25

/** One job's result, with the server's CPU and memory around its measured window. */
interface Outcome {
  readonly result: LoadResult
  readonly cpu: number
  readonly rss: number
  readonly window: [number, number]
}

export class Bench {
  readonly measurements: Measurement[] = []
  /** The best rate seen per scenario and server, to size the next pool. */
  private readonly rates = new Map<string, number>()

  private readonly options: Options
  private readonly loader: Loader
  private readonly servers: ReadonlyMap<ServerKind, RunningServer>
  private readonly prepared: ReadonlyMap<ServerKind, Prepared>
  private readonly person: Person

  constructor(
    options: Options,
    loader: Loader,
    servers: ReadonlyMap<ServerKind, RunningServer>,
    prepared: ReadonlyMap<ServerKind, Prepared>,
    person: Person,
  ) {
    this.options = options
    this.loader = loader
    this.servers = servers
    this.prepared = prepared
    this.person = person
  }

  async measure(scenario: Scenario, kind: ServerKind, round: number): Promise<void> {
    const server = this.server(kind)
    const context = this.context(kind)
    const key = `${scenario.id}/${kind}`
    const { warmup, duration, connections } = this.options
    let outcome: Outcome
    let pool: Measurement['pool']

    if (scenario.pool) {
      let rate = this.rates.get(key)
      // A probe under-estimates a warm server: a wider margin the first time.
      let margin = POOL_MARGIN
      if (rate === undefined) {
        margin = FIRST_POOL_MARGIN
        // A first, short run on a small pool tells how big a pool the real one needs.
        const amount = PROBE_REQUESTS
        const load = await scenario.load(context, amount + 4 * connections, connections)
        const probe = await this.run(server, scenario, { amount, load, warmupSeconds: 0 })
        this.prepared.get(kind)?.keepRefreshTokens(probe.result.harvest)
        rate = probe.result.operations / probe.result.seconds
      }
      for (let attempt = 1; ; attempt += 1) {
        const size = Math.ceil(rate * (warmup + duration) * margin) + 4 * connections
        const making = Date.now()
        const load = await scenario.load(context, size, connections)
        const makingSeconds = (Date.now() - making) / 1000
        if (scenario.pool === 'codes' && makingSeconds + warmup + duration > CODE_POOL_DEADLINE_S) {
          throw new Error(
            `${key}: making ${size} codes took ${makingSeconds.toFixed(1)} s; with the run they would outlive their 60 s. Use a shorter --duration.`,
          )
        }
        outcome = await this.run(server, scenario, { load })
        pool = { size, makingSeconds, consumed: outcome.result.consumed }
        if (!outcome.result.exhausted) break
        if (attempt === 3) throw new Error(`${key}: the pool ran out three times`)
        console.log(`  ${key}: the pool of ${size} ran out; again with a larger one`)
        rate *= 2
      }
    } else {
      outcome = await this.run(server, scenario, {
        load: await scenario.load(context, 0, this.options.connections),
      })
    }

    this.record(scenario, kind, round, [outcome], pool)
  }

  /**
   * A scenario measured on several servers in alternating slices (A B, B A, A B…), each
   * server's slices summed into its measurement of the round. Side by side within a second,
   * the servers meet the same machine: on this shared virtual machine the plain node:http
   * server's own CPU per request moved 2× between rounds of one run, and a ratio of two
   * measurements made seconds apart moved with it. Only for loads that carry no state from
   * one slice to the next (no pool, no flow).
   */
  async measureSliced(
    scenario: Scenario,
    kinds: readonly ServerKind[],
    round: number,
    slices: number,
  ): Promise<void> {
    const loads = new Map<ServerKind, Load>()
    const parts = new Map<ServerKind, Outcome[]>()
    for (const kind of kinds) {
      const load = scenario.pool
        ? undefined
        : await scenario.load(this.context(kind), 0, this.options.connections)
      if (load?.kind !== 'request' || load.pool) {
        // State from one slice to the next: measured whole, one server after the other.
        for (const each of kinds) await this.measure(scenario, each, round)
        return
      }
      loads.set(kind, load)
      parts.set(kind, [])
    }
    for (let slice = 0; slice < slices; slice += 1) {
      for (const kind of slice % 2 === 0 ? kinds : [...kinds].reverse()) {
        const server = this.server(kind)
        const outcome = await this.run(server, scenario, {
          load: loads.get(kind) as Load,
          warmupSeconds: slice === 0 ? this.options.warmup : SLICE_WARMUP_S,
          durationSeconds: this.options.duration / slices,
          keepLatencies: true,
        })
        parts.get(kind)?.push(outcome)
      }
    }
    for (const kind of kinds) this.record(scenario, kind, round, parts.get(kind) ?? [])
  }

  private server(kind: ServerKind): RunningServer {
    const server = this.servers.get(kind)
    if (!server) throw new Error(`${kind} is not running`)
    return server
  }

  private context(kind: ServerKind): ScenarioContext {
    return {
      server: kind,
      origin: this.server(kind).origin,
      // The limit server reads Portico's database: Portico's token and records.
      prepared: this.prepared.get(kind === 'limit' ? 'portico' : kind),
      person: this.person,
    }
  }

  /** One measurement of a round from its slices (one, unless measured in slices). */
  private record(
    scenario: Scenario,
    kind: ServerKind,
    round: number,
    parts: readonly Outcome[],
    pool?: Measurement['pool'],
  ): void {
    const sum = (figure: (part: Outcome) => number) =>
      parts.reduce((total, part) => total + figure(part), 0)
    const operations = sum((p) => p.result.operations)
    const requests = sum((p) => p.result.requests)
    const seconds = sum((p) => p.result.seconds)
    const only = parts.length === 1 ? parts[0] : undefined
    const latency = only
      ? only.result.latency
      : latencySummary(parts.flatMap((p) => p.result.latencies ?? []))
    for (const part of parts) {
      const { harvest } = part.result
      if (harvest.length > 0) this.prepared.get(kind)?.keepRefreshTokens(harvest)
    }
    const opsPerSecond = operations / seconds
    const key = `${scenario.id}/${kind}`
    this.rates.set(key, Math.max(this.rates.get(key) ?? 0, opsPerSecond))
    const measurement: Measurement = {
      round,
      scenario: scenario.id,
      server: kind,
      opsPerSecond,
      requestsPerSecond: requests / seconds,
      p50Ms: latency.p50,
      p99Ms: latency.p99,
      cpuMsPerOp: sum((p) => p.cpu) / Math.max(1, operations),
      peakRssMb: Math.max(...parts.map((p) => p.rss)),
      loaderCpuPercent: (sum((p) => p.result.loaderCpuMs) / (seconds * 1000)) * 100,
      operations,
      seconds,
      slices: parts.length,
      ...(pool && { pool }),
      ...(this.options.cpuProf &&
        (kind === 'portico' || kind === 'limit') && { windows: parts.map((p) => p.window) }),
    }
    this.measurements.push(measurement)
    console.log(
      `[${round}/${this.options.rounds}] ${`${scenario.id} · ${kind}`.padEnd(30)} ${Math.round(opsPerSecond).toString().padStart(7)} ops/s  p50 ${latency.p50.toFixed(2)} ms  p99 ${latency.p99.toFixed(2)} ms  ${measurement.cpuMsPerOp.toFixed(3)} CPU ms/op${pool ? `  (pool of ${pool.size} made in ${pool.makingSeconds.toFixed(1)} s)` : ''}${parts.length > 1 ? `  (${parts.length} slices)` : ''}`,
    )
  }

  /** One job on the load generator, with the server's CPU and memory read around the measurement. */
  private async run(
    server: RunningServer,
    scenario: Scenario,
    job: Pick<LoadJob, 'load' | 'amount' | 'keepLatencies'> & {
      warmupSeconds?: number
      durationSeconds?: number
    },
  ): Promise<Outcome> {
    let cpuAtStart = 0
    let windowStart = 0
    let stopSampling: (() => number) | undefined
    server.assertAlive()
    const result = await this.loader.run(
      {
        origin: server.origin,
        connections: this.options.connections,
        warmupSeconds: job.warmupSeconds ?? this.options.warmup,
        durationSeconds: job.durationSeconds ?? this.options.duration,
        load: job.load,
        ...(job.amount !== undefined && { amount: job.amount }),
        ...(job.keepLatencies && { keepLatencies: true }),
      },
      () => {
        cpuAtStart = cpuMs(server.pid)
        stopSampling = sampleRss(server.pid)
        windowStart = monotonicMicros()
      },
    )
    const window: [number, number] = [windowStart, monotonicMicros()]
    const cpu = cpuMs(server.pid) - cpuAtStart
    const rss = stopSampling?.() ?? 0
    server.assertAlive()
    if (result.failures > 0) {
      const samples = result.failureSamples
        .map((f) => `  ${f.step}: ${f.status || 'no answer'} ${f.detail.replace(/\s+/g, ' ')}`)
        .join('\n')
      throw new Error(
        `${scenario.id} on ${server.kind}: ${result.failures} requests did not succeed; the bench counts no failure as speed:\n${samples}`,
      )
    }
    if (result.operations === 0)
      throw new Error(`${scenario.id} on ${server.kind}: nothing completed`)
    return { result, cpu, rss, window }
  }
}

/** CLOCK_MONOTONIC in µs: the clock V8 stamps CPU-profile samples with. */
function monotonicMicros(): number {
  return Number(process.hrtime.bigint() / 1000n)
}
