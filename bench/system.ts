import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import os from 'node:os'

/** What the benchmark reads about processes and the machine, from /proc (Linux). */

let ticksPerSecond: number | undefined

/** CPU time a process has used so far, all its threads, user and system, milliseconds. */
export function cpuMs(pid: number): number {
  ticksPerSecond ??=
    Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const ticks = Number(fields[11]) + Number(fields[12])
  return (ticks * 1000) / ticksPerSecond
}

/** Resident memory now and at its highest so far, megabytes. */
export function memoryMb(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (name: string) =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0)
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 }
}

/** Samples a process's resident memory until stopped; the highest sample, megabytes. */
export function sampleRss(pid: number, everyMs = 100): () => number {
  let highest = memoryMb(pid).rss
  const timer = setInterval(() => {
    try {
      highest = Math.max(highest, memoryMb(pid).rss)
    } catch {
      // The process is gone; the caller finds out on its own.
    }
  }, everyMs)
  return () => {
    clearInterval(timer)
    try {
      highest = Math.max(highest, memoryMb(pid).rss)
    } catch {}
    return highest
  }
}

/** Which cores the servers and the load generator get. */
export interface Pinning {
  readonly server: string | undefined
  readonly load: string | undefined
  readonly note: string
}

/**
 * With two or more cores and taskset (util-linux): the last core for the server under load,
 * the others for the load generator and this orchestrator. Otherwise nothing is pinned.
 */
export function choosePinning(): Pinning {
  const cores = os.availableParallelism()
  if (cores < 2) return { server: undefined, load: undefined, note: 'one core: nothing pinned' }
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' })
  } catch {
    return {
      server: undefined,
      load: undefined,
      note: 'taskset not found (util-linux): nothing pinned',
    }
  }
  const server = String(cores - 1)
  const load = cores === 2 ? '0' : `0-${cores - 2}`
  return { server, load, note: `server on core ${server}, load generator on core ${load}` }
}

/** Pins this process (every thread) to `cores`. */
export function pinSelf(cores: string | undefined): void {
  if (cores)
    execFileSync('taskset', ['-a', '-p', '-c', cores, String(process.pid)], { stdio: 'ignore' })
}

/** The command that runs `args` on `cores`. */
export function pinned(
  cores: string | undefined,
  command: string,
  args: string[],
): [string, string[]] {
  return cores ? ['taskset', ['-c', cores, command, ...args]] : [command, args]
}

/** Asks the kernel for a free port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      const port = typeof address === 'object' && address ? address.port : 0
      probe.close(() => resolve(port))
    })
  })
}

export interface Machine {
  readonly cpu: string
  readonly cores: number
  readonly memoryGb: number
  readonly os: string
  readonly node: string
  readonly loadAverage: readonly number[]
}

export function describeMachine(): Machine {
  const cpus = os.cpus()
  return {
    cpu: cpus[0]?.model.replace(/\s+/g, ' ').trim() ?? 'unknown',
    cores: os.availableParallelism(),
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
  }
}
