import type { Scenario } from './scenarios.js'
import type { ServerKind } from './servers.js'

/** Aggregation of the rounds, the targets of issues 7, 20, 34 and 38, and the table. */

export interface Measurement {
  readonly round: number
  readonly scenario: string
  readonly server: ServerKind
  readonly opsPerSecond: number
  readonly requestsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly cpuMsPerOp: number
  readonly peakRssMb: number
  /** Share of one core the load generator used while measuring. */
  readonly loaderCpuPercent: number
  readonly operations: number
  readonly seconds: number
  readonly pool?: {
    readonly size: number
    readonly makingSeconds: number
    readonly consumed: number
  }
  /** Slices the measurement was made in, alternating with the other servers' (1: one piece). */
  readonly slices: number
  /** With --cpu-prof: the measured windows (one a slice) on the CPU profile's monotonic clock, µs. */
  readonly windows?: ReadonlyArray<readonly [number, number]>
}

export interface Row {
  readonly scenario: string
  readonly title: string
  readonly server: ServerKind
  readonly rounds: number
  readonly opsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly cpuMsPerOp: number
  readonly peakRssMb: number
  readonly loaderCpuPercent: number
  readonly versusBaseline: number | undefined
  readonly versusProvider: number | undefined
  /**
   * Portico's CPU per operation over the limit server's: in each round the two measured
   * side by side, the median of those ratios.
   */
  readonly versusLimit: number | undefined
  /** Portico's p99 over the limit server's, measured side by side: the median of the rounds'. */
  readonly p99VersusLimit: number | undefined
  /**
   * Portico's p99 ÷ p50 over the limit server's, the median of the rounds'. All 10
   * connections keep the server busy, so a request waits for the ones ahead of it: both
   * latencies grow with the CPU an operation costs, and a server that costs 1.3× as much has
   * about 1.3× the p99 with no pause at all. Their quotient is the tail's shape: above 1,
   * Portico's slowest requests wait longer than its typical ones, beyond what the limit's do
   * (pauses: garbage collection, a write waited for).
   */
  readonly tailVersusLimit: number | undefined
  /**
   * Portico's CPU per operation over its own in the scenario the target names
   * (`versusPortico`): in each round, the median of those ratios.
   */
  readonly versusPortico: number | undefined
}

export interface TargetCheck {
  readonly target: string
  readonly measured: string
  readonly met: boolean
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  if (sorted.length === 0) return Number.NaN
  return sorted.length % 2
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
}

/** The p50, p99 and highest of single-request latencies (ms), as the load generator reports them. */
export function latencySummary(latencies: readonly number[]): {
  p50: number
  p99: number
  max: number
} {
  const sorted = Float64Array.from(latencies).sort()
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0
  return { p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] ?? 0 }
}

export function aggregate(
  scenarios: readonly Scenario[],
  measurements: readonly Measurement[],
): Row[] {
  const of = (scenario: string, server: ServerKind) =>
    measurements.filter((m) => m.scenario === scenario && m.server === server)
  const baseline = median(of('static', 'plain').map((m) => m.opsPerSecond))
  const rows: Row[] = []
  for (const scenario of scenarios) {
    for (const server of scenario.servers) {
      const runs = of(scenario.id, server)
      if (runs.length === 0) continue
      const ops = median(runs.map((m) => m.opsPerSecond))
      const provider = median(of(scenario.id, 'oidc-provider').map((m) => m.opsPerSecond))
      const limitRuns = of(scenario.id, 'limit')
      const perRound = (figure: (portico: Measurement, limit: Measurement) => number) =>
        runs.flatMap((m) => {
          const limit = limitRuns.find((l) => l.round === m.round)
          return limit && limit.cpuMsPerOp > 0 && limit.p50Ms > 0 && m.p50Ms > 0
            ? [figure(m, limit)]
            : []
        })
      const versusLimit = (figure: (portico: Measurement, limit: Measurement) => number) => {
        const ratios = server === 'portico' ? perRound(figure) : []
        return ratios.length > 0 ? median(ratios) : undefined
      }
      const twin = scenario.target?.versusPortico?.scenario
      const twinRuns = twin === undefined ? [] : of(twin, 'portico')
      const perRoundTwin = runs.flatMap((m) => {
        const other = twinRuns.find((t) => t.round === m.round)
        return other && other.cpuMsPerOp > 0 ? [m.cpuMsPerOp / other.cpuMsPerOp] : []
      })
      rows.push({
        scenario: scenario.id,
        title: scenario.title,
        server,
        rounds: runs.length,
        opsPerSecond: ops,
        p50Ms: median(runs.map((m) => m.p50Ms)),
        p99Ms: median(runs.map((m) => m.p99Ms)),
        cpuMsPerOp: median(runs.map((m) => m.cpuMsPerOp)),
        peakRssMb: Math.max(...runs.map((m) => m.peakRssMb)),
        loaderCpuPercent: median(runs.map((m) => m.loaderCpuPercent)),
        versusBaseline:
          Number.isFinite(baseline) && server !== 'plain' ? ops / baseline : undefined,
        versusProvider:
          server === 'portico' && Number.isFinite(provider) ? ops / provider : undefined,
        versusLimit: versusLimit((m, limit) => m.cpuMsPerOp / limit.cpuMsPerOp),
        p99VersusLimit: versusLimit((m, limit) => m.p99Ms / limit.p99Ms),
        tailVersusLimit: versusLimit((m, limit) => m.p99Ms / m.p50Ms / (limit.p99Ms / limit.p50Ms)),
        versusPortico:
          server === 'portico' && perRoundTwin.length > 0 ? median(perRoundTwin) : undefined,
      })
    }
  }
  return rows
}

export interface EndOfRun {
  readonly porticoRssMb: number
  readonly dialect: 'sqlite' | 'postgres'
}

/** Portico's figures against the targets of issues 7, 20, 34 and 38. */
export function checkTargets(
  scenarios: readonly Scenario[],
  rows: readonly Row[],
  end: EndOfRun,
): TargetCheck[] {
  const checks: TargetCheck[] = []
  const portico = (id: string) => rows.find((r) => r.scenario === id && r.server === 'portico')
  for (const scenario of scenarios) {
    const row = portico(scenario.id)
    if (!row) continue
    const { versusProvider, versusBaseline, versusLimit, versusPortico } = scenario.target ?? {}
    if (versusLimit && 'get' in versusLimit) {
      const limitGet = rows.find((r) => r.scenario === versusLimit.get && r.server === 'limit')
      if (limitGet) {
        checks.push({
          target: `${scenario.id}: Portico's CPU ≤ the limit server's on the full GET (${versusLimit.get})`,
          measured: `${cpu(row.cpuMsPerOp)} vs ${cpu(limitGet.cpuMsPerOp)} ms (${ratio(row.cpuMsPerOp / limitGet.cpuMsPerOp)})`,
          met: row.cpuMsPerOp <= limitGet.cpuMsPerOp,
        })
      }
    } else if (versusLimit && row.versusLimit !== undefined) {
      const most = versusLimit[end.dialect]
      if (most !== undefined)
        checks.push({
          target: `${scenario.id}: CPU ≤ ${most}× the limit server's on ${end.dialect}`,
          measured: ratio(row.versusLimit),
          met: row.versusLimit <= most,
        })
    }
    if (row.p99VersusLimit !== undefined && row.tailVersusLimit !== undefined) {
      checks.push({
        target: `${scenario.id}: p99 ≤ ${P99_LIMIT}× the limit server's`,
        measured: `${ratio(row.p99VersusLimit)} (its p99 ÷ p50 ${ratio(row.tailVersusLimit)} the limit's)`,
        met: row.p99VersusLimit <= P99_LIMIT,
      })
    }
    const twin = versusPortico && portico(versusPortico.scenario)
    if (versusPortico && twin && row.versusPortico !== undefined) {
      checks.push({
        target: `${scenario.id}: CPU ≤ ${versusPortico.most}× Portico's own in ${versusPortico.scenario}`,
        measured: `${ratio(row.versusPortico)} (${cpu(row.cpuMsPerOp)} vs ${cpu(twin.cpuMsPerOp)} ms, medians)`,
        met: row.versusPortico <= versusPortico.most,
      })
    }
    if (versusProvider !== undefined && row.versusProvider !== undefined) {
      checks.push({
        target: `${scenario.id}: ≥ ${versusProvider}× oidc-provider`,
        measured: `${ratio(row.versusProvider)}`,
        met: row.versusProvider >= versusProvider,
      })
    }
    if (versusBaseline !== undefined && row.versusBaseline !== undefined) {
      checks.push({
        target: `${scenario.id}: ≥ ${Math.round(versusBaseline * 100)} % of the static baseline`,
        measured: `${Math.round(row.versusBaseline * 100)} %`,
        met: row.versusBaseline >= versusBaseline,
      })
    }
  }
  const slow = rows.filter((r) => {
    const exempt = scenarios.find((s) => s.id === r.scenario)?.target?.noLatencyTarget
    return r.server === 'portico' && !exempt && r.p99Ms >= 20
  })
  const measuredP99 = rows.filter(
    (r) =>
      r.server === 'portico' &&
      !scenarios.find((s) => s.id === r.scenario)?.target?.noLatencyTarget,
  )
  if (measuredP99.length > 0) {
    checks.push({
      target: 'p99 < 20 ms at every Portico scenario but sign-in',
      measured:
        slow.length === 0
          ? `highest ${ms(Math.max(...measuredP99.map((r) => r.p99Ms)))} ms`
          : slow.map((r) => `${r.scenario} ${ms(r.p99Ms)} ms`).join(', '),
      met: slow.length === 0,
    })
  }
  checks.push({
    target: 'Portico resident memory < 200 MB at the end of the run',
    measured: `${Math.round(end.porticoRssMb)} MB`,
    met: end.porticoRssMb < 200,
  })
  return checks
}

/** Portico's p99 over the limit server's, at most (issue 38). */
const P99_LIMIT = 1.2

const SERVER_NAMES: Record<ServerKind, string> = {
  plain: 'node:http',
  portico: 'Portico',
  'oidc-provider': 'oidc-provider',
  limit: 'limit server',
}

function ratio(value: number | undefined): string {
  return value === undefined ? '' : `${value >= 10 ? value.toFixed(1) : value.toFixed(2)}×`
}

function ms(value: number): string {
  return value >= 10 ? value.toFixed(1) : value.toFixed(2)
}

function thousands(value: number): string {
  return Math.round(value).toLocaleString('en-US')
}

function cpu(value: number): string {
  return value >= 10 ? value.toFixed(1) : value >= 1 ? value.toFixed(2) : value.toFixed(3)
}

/** The table, in Markdown (the README shows the same). */
export function table(rows: readonly Row[]): string {
  const lines = [
    '| scenario | server | ops/s | p50 ms | p99 ms | server CPU ms/op | peak RSS MB | × baseline | × oidc-provider | CPU × limit | p99 × limit |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ]
  for (const row of rows) {
    const saturated = row.loaderCpuPercent >= 90 ? ' †' : ''
    lines.push(
      `| ${row.title} | ${SERVER_NAMES[row.server]} | ${thousands(row.opsPerSecond)}${saturated} | ${ms(row.p50Ms)} | ${ms(row.p99Ms)} | ${cpu(row.cpuMsPerOp)} | ${Math.round(row.peakRssMb)} | ${ratio(row.versusBaseline)} | ${ratio(row.versusProvider)} | ${ratio(row.versusLimit)} | ${ratio(row.p99VersusLimit)} |`,
    )
  }
  return lines.join('\n')
}

export function targetLines(checks: readonly TargetCheck[]): string {
  return checks.map((c) => `- ${c.met ? 'met   ' : 'MISSED'} ${c.target}: ${c.measured}`).join('\n')
}
