import autocannon from 'autocannon'
import { buildRequests, type JobState, Tally } from './flows.js'
import type { FromLoader, LoadJob, LoadResult, ToLoader } from './load-protocol.js'
import { latencySummary } from './report.js'

/**
 * The load generator: a process of its own (pinned by the orchestrator to another core than
 * the server's) that runs autocannon for each job it is sent over IPC. A job is a warm-up,
 * a pause while the orchestrator reads the server's CPU counters, then the measurement.
 */

if (!process.send) throw new Error('bench/load.js runs as a child of bench/run.js')

const waiting = new Map<number, () => void>()

const send = (message: FromLoader) => process.send?.(message)

process.on('message', (message: ToLoader) => {
  if (message.type === 'go') {
    waiting.get(message.id)?.()
    waiting.delete(message.id)
    return
  }
  runJob(message.id, message.job).then(
    (result) => send({ type: 'done', id: message.id, result }),
    (error: unknown) =>
      send({
        type: 'error',
        id: message.id,
        message: error instanceof Error ? (error.stack ?? error.message) : String(error),
      }),
  )
})
process.on('disconnect', () => process.exit(0))

/**
 * A pause before each phase: autocannon ends a phase by dropping the requests still in
 * flight, which the server finishes after it. Without the pause they would overlap the next
 * phase, counted in its CPU, and (for sign-ins, whose throttle holds a unit of budget per
 * attempt in flight) push one account past 10 attempts at once from one address.
 */
const SETTLE_MS = 250
const settle = () => new Promise<void>((resolve) => setTimeout(resolve, SETTLE_MS))

async function runJob(id: number, job: LoadJob): Promise<LoadResult> {
  const state: JobState = {
    next: 0,
    browsers: job.load.kind === 'flow' ? [...job.load.browsers] : [],
  }
  const harvest: string[] = []
  const warm = new Tally(harvest)
  await settle()
  if (job.warmupSeconds > 0 && job.amount === undefined) {
    await phase(job, warm, state, { duration: job.warmupSeconds })
    await settle()
  }
  await new Promise<void>((resolve) => {
    waiting.set(id, resolve)
    send({ type: 'warmed', id })
  })
  const tally = new Tally(harvest)
  const latencies: number[] = []
  const cpu = process.cpuUsage()
  const started = performance.now()
  await phase(
    job,
    tally,
    state,
    job.amount === undefined ? { duration: job.durationSeconds } : { amount: job.amount },
    latencies,
  )
  const seconds = (performance.now() - started) / 1000
  const used = process.cpuUsage(cpu)
  return {
    operations: tally.operations,
    requests: tally.requests,
    seconds,
    latency: latencySummary(latencies),
    ...(job.keepLatencies && { latencies }),
    failures: warm.failures + tally.failures,
    failureSamples: [...warm.samples, ...tally.samples].slice(0, 5),
    exhausted: warm.exhausted || tally.exhausted,
    consumed: state.next,
    loaderCpuMs: (used.user + used.system) / 1000,
    harvest,
  }
}

function phase(
  job: LoadJob,
  tally: Tally,
  state: JobState,
  limit: { duration: number } | { amount: number },
  latencies?: number[],
): Promise<void> {
  return new Promise((resolve, reject) => {
    let instance: autocannon.Instance | undefined
    const { requests, expect } = buildRequests(job.load, tally, state, () => instance?.stop())
    instance = autocannon(
      {
        url: job.origin,
        connections: job.connections,
        pipelining: 1,
        timeout: 10,
        ...limit,
        requests,
      },
      (error, result) => {
        if (error) return reject(error)
        if (result.errors > 0 || result.timeouts > 0) {
          tally.fail(
            'connection',
            0,
            `${result.errors} connection errors, ${result.timeouts} time-outs`,
          )
        }
        resolve()
      },
    )
    instance.on('response', (_client, status, _bytes, milliseconds) => {
      tally.requests += 1
      latencies?.push(milliseconds)
      if (expect === undefined) return
      if (status === expect) tally.operations += 1
      else tally.fail(job.load.kind === 'request' ? job.load.path : 'response', status, '')
    })
  })
}
