import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'

/**
 * Ports for the servers the tests start, each free when handed out and nobody else's to take.
 *
 * A port the kernel picks (listen on port 0) comes from its ephemeral range, the range it also
 * gives every outgoing connection its local port from. Asked for, freed and bound again a
 * moment later by the test's server, such a port may meanwhile be the local end of one of the
 * other worker's connections: `listen EADDRINUSE` (CI saw it once, on a port of 40889).
 * So tests take their ports below that range, where the kernel never picks by itself, each
 * worker of the run its own slice (VITEST_POOL_ID, unique among the workers running at once),
 * one after another, skipping any port something has bound.
 */

/** Ports per worker; the slices of 16 workers fill the 16,384 ports below the range. */
const SLICE = 1024
const WORKERS = 16

const slice = ((Number(process.env.VITEST_POOL_ID) || 0) % WORKERS) * SLICE
const base = ephemeralRangeStart() - WORKERS * SLICE + slice
/** Begins at a place of its own per process, so a restarted worker goes on elsewhere. */
let next = process.pid % SLICE

/** A port of 127.0.0.1 free now and this worker's alone. */
export async function freePort(): Promise<number> {
  for (let tried = 0; tried < SLICE; tried++) {
    const port = base + (next++ % SLICE)
    if (await bindable(port)) return port
  }
  throw new Error(`no free port in ${base}–${base + SLICE - 1}`)
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer()
    probe.once('error', () => resolve(false))
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)))
  })
}

/** The first port of the kernel's ephemeral range (Linux's default when it cannot be read). */
function ephemeralRangeStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)
    const start = Number(low)
    if (Number.isInteger(start) && start > WORKERS * SLICE + 1024) return start
  } catch {
    // not Linux, or /proc is not mounted
  }
  return 32768
}
