import type { LoadJob, LoadResult } from './load-protocol.js'
import type { Loader } from './loader.js'
import type { Options } from './options.js'
import type { Person, Prepared } from './prepare.js'
import type { Measurement } from './report.js'
import type { Scenario } from './scenarios.js'
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
    const server = this.servers.get(kind)
    if (!server) throw new Error(`${kind} is not running`)
    const context = {
      server: kind,
      origin: server.origin,
      // The limit server reads Portico's database: Portico's token and records.
      prepared: this.prepared.get(kind === 'limit' ? 'portico' : kind),
      person: this.person,
    }
    const key = `${scenario.id}/${kind}`
    const { warmup, duration, connections } = this.options
    let outcome: { result: LoadResult; cpu: number; rss: number; window: [number, number] }
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

    const { result, cpu, rss, window } = outcome
    if (result.harvest.length > 0) this.prepared.get(kind)?.keepRefreshTokens(result.harvest)
    const opsPerSecond = result.operations / result.seconds
    this.rates.set(key, Math.max(this.rates.get(key) ?? 0, opsPerSecond))
    const measurement: Measurement = {
      round,
      scenario: scenario.id,
      server: kind,
      opsPerSecond,
      requestsPerSecond: result.requests / result.seconds,
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      cpuMsPerOp: cpu / Math.max(1, result.operations),
      peakRssMb: rss,
      loaderCpuPercent: (result.loaderCpuMs / (result.seconds * 1000)) * 100,
      operations: result.operations,
      seconds: result.seconds,
      ...(pool && { pool }),
      ...(this.options.cpuProf && (kind === 'portico' || kind === 'limit') && { window }),
    }
    this.measurements.push(measurement)
    console.log(
      `[${round}/${this.options.rounds}] ${`${scenario.id} · ${kind}`.padEnd(30)} ${Math.round(opsPerSecond).toString().padStart(7)} ops/s  p50 ${result.latency.p50.toFixed(2)} ms  p99 ${result.latency.p99.toFixed(2)} ms  ${measurement.cpuMsPerOp.toFixed(3)} CPU ms/op${pool ? `  (pool of ${pool.size} made in ${pool.makingSeconds.toFixed(1)} s)` : ''}`,
    )
  }

  /** One job on the load generator, with the server's CPU and memory read around the measurement. */
  private async run(
    server: RunningServer,
    scenario: Scenario,
    job: Pick<LoadJob, 'load' | 'amount'> & { warmupSeconds?: number },
  ): Promise<{ result: LoadResult; cpu: number; rss: number; window: [number, number] }> {
    let cpuAtStart = 0
    let windowStart = 0
    let stopSampling: (() => number) | undefined
    server.assertAlive()
    const result = await this.loader.run(
      {
        origin: server.origin,
        connections: this.options.connections,
        warmupSeconds: job.warmupSeconds ?? this.options.warmup,
        durationSeconds: this.options.duration,
        load: job.load,
        ...(job.amount !== undefined && { amount: job.amount }),
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
