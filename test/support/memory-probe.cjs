// Preloaded into a `portico serve` started by a test (`--expose-gc --require` this file):
// on SIGUSR2 it collects all garbage, then writes one line to stderr with what the process
// still holds. Plain CommonJS, so Node 20 runs it as it is; it changes nothing else.
const { writeSync } = require('node:fs')
const { getHeapStatistics } = require('node:v8')

/**
 * How long the probe waits after collecting before it reads the process's memory. V8 hands
 * the pages a collection emptied back to the system from a background thread, after gc()
 * has returned: read at once, they were still resident but no longer counted in the heap,
 * and "memory outside the heap" moved by up to 15 MiB between two samples of the same
 * server (6 MiB typical). After this wait two samples agree within about 1 MiB.
 */
const SETTLE_MS = 300

let probes = 0
process.on('SIGUSR2', () => {
  // Twice: the first collection can leave garbage whose finalizers only ran after it.
  globalThis.gc?.()
  globalThis.gc?.()
  setTimeout(sample, SETTLE_MS)
})

function sample() {
  const { rss, heapUsed, external } = process.memoryUsage()
  probes += 1
  const line = {
    probe: probes,
    collected: typeof globalThis.gc === 'function',
    rss,
    heapUsed,
    external,
    heapResident: getHeapStatistics().total_physical_size,
  }
  writeSync(2, `portico-memory-probe ${JSON.stringify(line)}\n`)
}
