import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Difference } from './limit-check.js'
import type { Options } from './options.js'
import type { Measurement, Row, TargetCheck } from './report.js'
import type { Scenario } from './scenarios.js'
import type { BenchDatabase } from './servers.js'
import type { Machine, Pinning } from './system.js'

/**
 * The JSON of a run, every round with it, written to bench/results/ (or --out), and the
 * versions it records.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

export interface Results {
  /** When the run started, ms since the epoch. */
  readonly started: number
  readonly seconds: number
  readonly options: Options
  readonly machineAtStart: Machine
  readonly machineAtEnd: Machine
  readonly pinning: Pinning
  readonly dialect: BenchDatabase['dialect']
  readonly rows: readonly Row[]
  readonly checks: readonly TargetCheck[]
  readonly limitChecks: Readonly<Record<string, Difference | undefined>>
  readonly memoryAtEnd: Readonly<Record<string, { readonly rss: number; readonly peak: number }>>
  readonly scenarios: readonly Scenario[]
  readonly measurements: readonly Measurement[]
}

export function saveResults(results: Results): void {
  const {
    started,
    seconds,
    options,
    machineAtStart,
    machineAtEnd,
    pinning,
    dialect,
    rows,
    checks,
    limitChecks,
    memoryAtEnd,
    scenarios,
    measurements,
  } = results
  const stamp = new Date(started).toISOString().replace(/:/g, '-').replace(/\..*/, '')
  const file = options.out ?? path.join(ROOT, 'bench', 'results', `${stamp}-${dialect}.json`)
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
        database: dialect,
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
        measurements,
      },
      null,
      2,
    )}\n`,
  )
  console.log(`results: ${path.relative(process.cwd(), file)}`)
}

export function packageVersion(name: string): string {
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
