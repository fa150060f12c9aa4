import { randomBytes } from 'node:crypto'
import { checkLimitServer } from './limit-check.js'
import { Loader } from './loader.js'
import { Bench } from './measure.js'
import { type Options, parseOptions, USAGE } from './options.js'
import { type OAuthServer, type Person, type Prepared, prepare } from './prepare.js'
import { aggregate, checkTargets } from './report.js'
import { packageVersion, saveResults } from './results-file.js'
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
import { printSummary } from './summary.js'
import { choosePinning, describeMachine, memoryMb, pinSelf } from './system.js'

/**
 * `npm run bench`: plain node:http, Portico, oidc-provider and the limit server (on Portico's
 * database, for the API's reads) started one after another on 127.0.0.1 (oidc-provider and the
 * limit server only when a chosen scenario has them), the scenarios run
 * on each server that has them, round after round with the servers interleaved, then the
 * table, the targets of issues 7 and 20, and the JSON.
 *
 * A measurement is made in measure.ts, the limit server's answers checked in limit-check.ts,
 * the end of the run printed by summary.ts and its JSON written by results-file.ts.
 */

/** The pause after the last scenario before memory is read for "at the end of the run". */
const SETTLE_MS = 5000

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
        if (order.length > 1 && !scenario.pool && options.slices > 1)
          await bench.measureSliced(scenario, order, round, options.slices)
        else for (const kind of order) await bench.measure(scenario, kind, round)
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

    printSummary({
      options,
      scenarios,
      rows,
      checks,
      limitChecks,
      porticoMemory,
      settleMs: SETTLE_MS,
      seconds,
      machineAtEnd,
    })
    if (options.save) {
      saveResults({
        started,
        seconds,
        options,
        machineAtStart,
        machineAtEnd,
        pinning,
        dialect: database.dialect,
        rows,
        checks,
        limitChecks,
        memoryAtEnd,
        scenarios,
        measurements: bench.measurements,
      })
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

/** Seconds the run should take, roughly. */
function estimateSeconds(scenarios: readonly Scenario[], options: Options): number {
  const measurements = scenarios.reduce((n, s) => n + s.servers.length, 0)
  const pools = scenarios.filter((s) => s.pool).reduce((n, s) => n + s.servers.length, 0)
  // Each slice after the first: two pauses, a short warm-up and a load generator's job more
  // (about 2 s each, measured: 1,403 s for a full 3-round run on SQLite).
  const slices = scenarios
    .filter((s) => s.servers.length > 1 && !s.pool)
    .reduce((n, s) => n + s.servers.length * (options.slices - 1), 0)
  return (
    options.rounds *
      (measurements * (options.warmup + options.duration + 0.8) + slices * 2 + pools * 10) +
    20
  )
}

function roundMemory(memory: { rss: number; peak: number }) {
  return { rss: Math.round(memory.rss), peak: Math.round(memory.peak) }
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
