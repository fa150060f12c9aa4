import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { compareAnswers, type Difference, SAMPLE } from './limit-check.js'
import type { LoadJob, LoadResult } from './load-protocol.js'
import { Loader } from './loader.js'
import { type Options, parseOptions, USAGE } from './options.js'
import { type OAuthServer, type Person, type Prepared, prepare } from './prepare.js'
import { aggregate, checkTargets, type Measurement, table, targetLines } from './report.js'
import { SCENARIOS, type Scenario } from './scenarios.js'
import {
  createDatabase,
  killAll,
  type RunningServer,
  type ServerKind,
  startLimit,
  startOidcProvider,
  startPlain,
  startPortico,
} from './servers.js'
import { choosePinning, cpuMs, describeMachine, memoryMb, pinSelf, sampleRss } from './system.js'

/**
 * `npm run bench`: plain node:http, Portico, oidc-provider and the limit server (on Portico's
 * database, for the API's reads) started one after another on 127.0.0.1 (oidc-provider and the
 * limit server only when a chosen scenario has them), the scenarios run
 * on each server that has them, round after round with the servers interleaved, then the
 * table, the targets of issues 7 and 20, and the JSON.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

/** Pools are made for this many times the expected consumption… */
const POOL_MARGIN = 1.25
/** …and more the first time, when the rate comes from a short probe of a colder server. */
const FIRST_POOL_MARGIN = 2.2
/** Requests of that probe. */
const PROBE_REQUESTS = 1000
/** The pause after the last scenario before memory is read for "at the end of the run". */
const SETTLE_MS = 5000
/** Codes live 60 s: a pool must be made and used well within that. */
const CODE_POOL_DEADLINE_S = 50

async function main(): Promise<number> {
  const parsed = parseOptions(process.argv.slice(2))
  if (parsed === 'help') {
    console.log(USAGE)
    return 0
  }
  const options = parsed
  let scenarios = SCENARIOS.filter(
    (s) => s.id === 'static' || options.only.length === 0 || options.only.includes(s.id),
  )
  const unknown = options.only.filter((id) => !SCENARIOS.some((s) => s.id === id))
  if (unknown.length > 0) throw new Error(`unknown scenario ${unknown.join(', ')}\n\n${USAGE}`)

  const machineAtStart = describeMachine()
  const pinning = choosePinning()
  pinSelf(pinning.load)
  const started = Date.now()
  // Ends the run whatever happens: nothing of it outlives its time.
  const budgetMs = (estimateSeconds(scenarios, options) * 3 + 300) * 1000
  setTimeout(() => {
    console.error(`bench: still running after ${Math.round(budgetMs / 1000)} s; stopping`)
    killAll()
    process.exit(1)
  }, budgetMs).unref()

  console.log(
    `Portico benchmark: ${options.rounds} rounds × ${options.warmup} s warm-up + ${options.duration} s, ${options.connections} connections`,
  )
  console.log(
    `${machineAtStart.cpu}, ${machineAtStart.cores} cores, ${machineAtStart.memoryGb} GB, ${machineAtStart.os}, Node ${machineAtStart.node}; load average ${machineAtStart.loadAverage.join(' ')}`,
  )
  console.log(
    `${pinning.note}; about ${Math.round(estimateSeconds(scenarios, options) / 60)} min\n`,
  )

  const person: Person = {
    email: `bench-${randomBytes(3).toString('hex')}@school.invalid`,
    password: randomBytes(18).toString('base64url'),
    name: 'Bench Person',
  }
  const database = await createDatabase(process.env.DATABASE_URL)
  const servers = new Map<ServerKind, RunningServer>()
  const prepared = new Map<ServerKind, Prepared>()
  let loader: Loader | undefined
  try {
    servers.set('plain', await startPlain(pinning.server))
    servers.set('portico', await startPortico(pinning.server, database, person, options.cpuProf))
    // Only when a scenario compares with it: an API-only run has nothing to ask it.
    if (scenarios.some((s) => s.servers.includes('oidc-provider')))
      servers.set('oidc-provider', await startOidcProvider(pinning.server, person))
    for (const kind of ['portico', 'oidc-provider'] as const) {
      const server = servers.get(kind)
      if (server) prepared.set(kind, await prepare(kind as OAuthServer, server.origin, person))
    }
    const porticoOrigin = servers.get('portico')?.origin ?? ''
    // Started once Portico made the schema and the rows it reads.
    if (scenarios.some((s) => s.servers.includes('limit')))
      servers.set(
        'limit',
        await startLimit(pinning.server, database, porticoOrigin, options.cpuProf),
      )
    console.log(`Portico on ${database.dialect}: ${porticoOrigin}`)
    if (servers.has('oidc-provider'))
      console.log(
        `oidc-provider ${packageVersion('oidc-provider')}: ${servers.get('oidc-provider')?.origin}`,
      )
    console.log(`node:http: ${servers.get('plain')?.origin}`)
    if (servers.has('limit'))
      console.log(`limit server on ${database.dialect}: ${servers.get('limit')?.origin}`)
    const limitChecks = await checkLimitServer(scenarios, servers, prepared.get('portico'), person)
    scenarios = scenarios.flatMap((scenario) => {
      const difference = limitChecks[scenario.id]
      if (difference === undefined) return [scenario]
      // Portico not answering as the scenario expects: nothing to measure on either server.
      if (difference.portico) return []
      return [{ ...scenario, servers: scenario.servers.filter((kind) => kind !== 'limit') }]
    })
    console.log('')

    loader = new Loader(pinning.load)
    const bench = new Bench(options, loader, servers, prepared, person)
    for (let round = 1; round <= options.rounds; round += 1) {
      for (const scenario of scenarios) {
        // Interleaved, and in the other order every other round, so drift hits all alike.
        const order = round % 2 === 1 ? scenario.servers : [...scenario.servers].reverse()
        for (const kind of order) await bench.measure(scenario, kind, round)
      }
    }

    // Memory at the end: read once the last load has been over for a few seconds.
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS))
    const portico = servers.get('portico')
    const porticoMemory = portico ? memoryMb(portico.pid) : { rss: 0, peak: 0 }
    const memoryAtEnd = Object.fromEntries(
      [...servers].map(([kind, server]) => [kind, roundMemory(memoryMb(server.pid))]),
    )
    const rows = aggregate(scenarios, bench.measurements)
    const checks = checkTargets(scenarios, rows, {
      porticoRssMb: porticoMemory.rss,
      dialect: database.dialect,
    })
    const machineAtEnd = describeMachine()
    const seconds = Math.round((Date.now() - started) / 1000)

    console.log(`\n${table(rows)}\n`)
    console.log(
      `ops/s: median of ${options.rounds} rounds; one op is one request, but a full authorization (3 requests at Portico, 5 at oidc-provider).`,
    )
    console.log(
      "p50/p99: medians over the rounds of each round's single-request latency; CPU: the server process's user + system time per op; RSS: highest sample while measured.",
    )
    if (rows.some((r) => r.loaderCpuPercent >= 90)) {
      console.log('†: the load generator used its whole core; the server may be able to do more.')
    }
    for (const scenario of scenarios)
      if (scenario.note) console.log(`${scenario.id}: ${scenario.note}`)
    if (rows.some((r) => r.versusLimit !== undefined)) {
      console.log(
        "CPU × limit: Portico's CPU per operation over the limit server's (the same reads on the same database with plain node:http), median of the rounds' ratios.",
      )
    }
    for (const [id, difference] of Object.entries(limitChecks)) {
      if (difference !== undefined)
        console.log(
          `${id}: ${difference.portico ? 'not measured' : 'not compared with the limit server'} (${difference.detail})`,
        )
    }
    console.log(
      `Portico resident memory at the end (${SETTLE_MS / 1000} s after the last request): ${Math.round(porticoMemory.rss)} MB (peak ${Math.round(porticoMemory.peak)} MB)`,
    )
    console.log(`\nTargets (issues 7 and 20):\n${targetLines(checks)}`)
    console.log(`\n${seconds} s; load average at the end ${machineAtEnd.loadAverage.join(' ')}`)

    if (options.save) {
      const stamp = new Date(started).toISOString().replace(/:/g, '-').replace(/\..*/, '')
      const file =
        options.out ?? path.join(ROOT, 'bench', 'results', `${stamp}-${database.dialect}.json`)
      mkdirSync(path.dirname(file), { recursive: true })
      writeFileSync(
        file,
        `${JSON.stringify(
          {
            date: new Date(started).toISOString(),
            seconds,
            options,
            machine: { ...machineAtStart, loadAverageAtEnd: machineAtEnd.loadAverage },
            pinning,
            database: database.dialect,
            versions: {
              portico: gitRevision(),
              oidcProvider: packageVersion('oidc-provider'),
              autocannon: packageVersion('autocannon'),
              node: process.version,
            },
            table: rows,
            targets: checks,
            limitChecks,
            memoryAtEndMb: memoryAtEnd,
            notes: Object.fromEntries(scenarios.filter((s) => s.note).map((s) => [s.id, s.note])),
            measurements: bench.measurements,
          },
          null,
          2,
        )}\n`,
      )
      console.log(`results: ${path.relative(process.cwd(), file)}`)
    }
    return 0
  } finally {
    loader?.close()
    for (const p of prepared.values()) p.close()
    for (const server of servers.values()) await server.stop().catch(() => {})
    await database
      .drop()
      .catch((error: unknown) => console.error(`could not drop the database: ${error}`))
  }
}

class Bench {
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

/**
 * Compares, on a sample, the limit server's answers with Portico's for every scenario both
 * run; by scenario id, what differs (undefined: they agree).
 */
async function checkLimitServer(
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

/** Seconds the run should take, roughly. */
function estimateSeconds(scenarios: readonly Scenario[], options: Options): number {
  const measurements = scenarios.reduce((n, s) => n + s.servers.length, 0)
  const pools = scenarios.filter((s) => s.pool).reduce((n, s) => n + s.servers.length, 0)
  return (
    options.rounds * (measurements * (options.warmup + options.duration + 0.8) + pools * 10) + 20
  )
}

/** CLOCK_MONOTONIC in µs: the clock V8 stamps CPU-profile samples with. */
function monotonicMicros(): number {
  return Number(process.hrtime.bigint() / 1000n)
}

function roundMemory(memory: { rss: number; peak: number }) {
  return { rss: Math.round(memory.rss), peak: Math.round(memory.peak) }
}

function packageVersion(name: string): string {
  const file = path.join(ROOT, 'node_modules', name, 'package.json')
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version
}

function gitRevision(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).trim()
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).trim()
    return dirty ? `${head} with uncommitted changes in src/` : head
  } catch {
    return 'unknown'
  }
}

process.once('exit', killAll)
process.once('SIGINT', () => {
  killAll()
  process.exit(130)
})

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`\nbench FAILED: ${error instanceof Error ? error.message : String(error)}`)
    killAll()
    process.exit(1)
  },
)
