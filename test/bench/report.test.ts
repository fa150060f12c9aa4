import { describe, expect, it } from 'vitest'
import { aggregate, checkTargets, latencySummary, type Measurement } from '../../bench/report.js'
import type { Scenario } from '../../bench/scenarios.js'

const scenario: Scenario = {
  id: 'course',
  title: 'one course',
  servers: ['portico', 'limit'],
  target: { versusLimit: { sqlite: 1.3 } },
  load: () => Promise.reject(new Error('not run')),
}

function measured(
  round: number,
  server: 'portico' | 'limit',
  p50Ms: number,
  p99Ms: number,
  cpuMsPerOp: number,
): Measurement {
  return {
    round,
    scenario: 'course',
    server,
    opsPerSecond: 1000,
    requestsPerSecond: 1000,
    p50Ms,
    p99Ms,
    cpuMsPerOp,
    peakRssMb: 100,
    loaderCpuPercent: 50,
    operations: 1000,
    seconds: 1,
    slices: 1,
  }
}

describe("npm run bench: Portico's p99 against the limit server's", () => {
  // Round 1: Portico costs 1.4× and its latencies grow with it, tail of the same shape.
  // Round 2: the same cost, a p99 twice as far from its p50 as the limit's.
  const rows = aggregate(
    [scenario],
    [
      measured(1, 'portico', 1.4, 4.2, 0.14),
      measured(1, 'limit', 1, 3, 0.1),
      measured(2, 'portico', 1.4, 8.4, 0.14),
      measured(2, 'limit', 1, 3, 0.1),
    ],
  )
  const portico = rows.find((r) => r.server === 'portico')

  it("takes the median of the rounds' ratios of p99, and of p99 ÷ p50", () => {
    expect(portico?.versusLimit).toBeCloseTo(1.4)
    expect(portico?.p99VersusLimit).toBeCloseTo((1.4 + 2.8) / 2)
    expect(portico?.tailVersusLimit).toBeCloseTo((1 + 2) / 2)
    expect(rows.find((r) => r.server === 'limit')?.p99VersusLimit).toBeUndefined()
  })

  it('checks p99 ≤ 1.2× the limit server’s, and says the shape of the tail', () => {
    const checks = checkTargets([scenario], rows, { porticoRssMb: 100, dialect: 'sqlite' })
    expect(checks).toContainEqual({
      target: "course: p99 ≤ 1.2× the limit server's",
      measured: "2.10× (its p99 ÷ p50 1.50× the limit's)",
      met: false,
    })
  })
})

describe("npm run bench: a sliced measurement's latencies", () => {
  it('takes p50, p99 and the highest of all the slices together, not of each', () => {
    // Two slices: the second holds the slow requests, which neither slice's p99 alone shows.
    const fast = Array.from({ length: 100 }, (_, i) => 1 + i / 100)
    const slow = Array.from({ length: 100 }, (_, i) => (i < 96 ? 1.5 : 20 + i))
    const summary = latencySummary([...fast, ...slow])
    expect(summary.p50).toBeCloseTo(1.5)
    expect(summary.p99).toBe(118)
    expect(summary.max).toBe(119)
    expect(latencySummary([])).toEqual({ p50: 0, p99: 0, max: 0 })
  })
})
