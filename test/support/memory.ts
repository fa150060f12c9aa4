import path from 'node:path'
import type { CliServer } from './cli-server.js'

/**
 * `NODE_OPTIONS` for a `portico serve` whose memory a test reads: garbage collection on
 * request and the probe that answers SIGUSR2 (test/support/memory-probe.cjs).
 */
export const MEMORY_PROBE_NODE_OPTIONS = `--expose-gc --require "${path.resolve('test/support/memory-probe.cjs')}"`

/** What a process holds once all its garbage is collected, in MiB. */
export interface MemorySample {
  /** Resident memory of the whole process. */
  readonly rss: number
  /** Live JavaScript objects, and the memory outside the heap they own (buffers). */
  readonly retained: number
  /**
   * Resident memory outside V8's heap: malloc (SQLite and its driver, TLS, Node's own),
   * code, stacks. The heap's resident part is left out because V8 sizes it as it sees
   * fit: Node 24 grows the young generation to 128 MiB under load where Node 20 stays at
   * 32, which is capacity for garbage, not memory kept.
   */
  readonly native: number
  /** The packages whose CommonJS modules the process has loaded. */
  readonly packages: readonly string[]
}

const MiB = 1024 * 1024
const PROBE = /portico-memory-probe (\{[^\n]*\})\n/g

/** Asks a server started with MEMORY_PROBE_NODE_OPTIONS for a sample, after a full GC. */
export async function measureMemory(server: CliServer): Promise<MemorySample> {
  const before = probes(server).length
  server.kill('SIGUSR2')
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline) {
    const line = probes(server)[before]
    if (line) {
      if (!line.collected) throw new Error('the memory probe has no gc(): start with --expose-gc')
      return {
        rss: line.rss / MiB,
        retained: (line.heapUsed + line.external) / MiB,
        native: (line.rss - line.heapResident) / MiB,
        packages: line.packages,
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`no memory probe answer from process ${server.pid}`)
}

interface ProbeLine {
  readonly collected: boolean
  readonly rss: number
  readonly heapUsed: number
  readonly external: number
  readonly heapResident: number
  readonly packages: readonly string[]
}

function probes(server: CliServer): ProbeLine[] {
  return [...server.output().matchAll(PROBE)].map((m) => JSON.parse(m[1] ?? '{}') as ProbeLine)
}
