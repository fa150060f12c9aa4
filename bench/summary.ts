import type { Difference } from './limit-check.js'
import type { Options } from './options.js'
import { type Row, type TargetCheck, table, targetLines } from './report.js'
import type { Scenario } from './scenarios.js'
import type { Machine } from './system.js'

/**
 * What a run prints at its end: the table, what its columns mean, the scenarios' notes, what
 * the limit check left out, Portico's memory at the end, and the targets.
 */

export interface Summary {
  readonly options: Options
  readonly scenarios: readonly Scenario[]
  readonly rows: readonly Row[]
  readonly checks: readonly TargetCheck[]
  readonly limitChecks: Readonly<Record<string, Difference | undefined>>
  /** Portico's memory, read `settleMs` after the last request. */
  readonly porticoMemory: { readonly rss: number; readonly peak: number }
  readonly settleMs: number
  /** How long the run took. */
  readonly seconds: number
  readonly machineAtEnd: Machine
}

export function printSummary(summary: Summary): void {
  const { options, scenarios, rows, checks, limitChecks, porticoMemory, seconds, machineAtEnd } =
    summary
  console.log(`\n${table(rows)}\n`)
  console.log(
    `ops/s: median of ${options.rounds} rounds; one op is one request, but a full authorization (3 requests at Portico, 5 at oidc-provider).`,
  )
  console.log(
    "p50/p99: medians over the rounds of each round's single-request latency; CPU: the server process's user + system time per op; RSS: highest sample while measured.",
  )
  if (options.slices > 1)
    console.log(
      `Slices: a round of a scenario on several servers (but a pool's or a flow's) is measured in ${options.slices} slices of ${(options.duration / options.slices).toFixed(2)} s, the servers alternating (A B, B A…), each server's slices summed: on a shared machine whose speed drifts by the second, the servers compared meet the same machine.`,
    )
  if (rows.some((r) => r.loaderCpuPercent >= 90)) {
    console.log('†: the load generator used its whole core; the server may be able to do more.')
  }
  for (const scenario of scenarios)
    if (scenario.note) console.log(`${scenario.id}: ${scenario.note}`)
  if (rows.some((r) => r.versusLimit !== undefined)) {
    console.log(
      "CPU × limit: Portico's CPU per operation over the limit server's (the same reads on the same database with plain node:http), median of the rounds' ratios; p99 × limit the same of p99.",
    )
    console.log(
      "p99 ÷ p50 (in the targets): with all 10 connections busy, both latencies grow with the CPU an operation costs; Portico's p99 ÷ p50 over the limit's shows pauses beyond that.",
    )
  }
  for (const [id, difference] of Object.entries(limitChecks)) {
    if (difference !== undefined)
      console.log(
        `${id}: ${difference.portico ? 'not measured' : 'not compared with the limit server'} (${difference.detail})`,
      )
  }
  console.log(
    `Portico resident memory at the end (${summary.settleMs / 1000} s after the last request): ${Math.round(porticoMemory.rss)} MB (peak ${Math.round(porticoMemory.peak)} MB)`,
  )
  console.log(`\nTargets (issues 7, 20, 34 and 38):\n${targetLines(checks)}`)
  console.log(`\n${seconds} s; load average at the end ${machineAtEnd.loadAverage.join(' ')}`)
}
