// Preloaded into a `portico serve` started by a test (`--expose-gc --require` this file):
// on SIGUSR2 it closes the idle connections, collects all garbage, then writes one line to
// stderr with what the process still holds, and which CommonJS packages it loaded. Plain CommonJS, so Node 20 runs it as it is; it
// changes nothing else.
const { writeSync } = require('node:fs')
const http = require('node:http')
const { getHeapStatistics } = require('node:v8')

/**
 * The connections a client kept open after its last request hold their socket, parser and
 * buffers until the keep-alive timeout: after a round of 300 concurrent flows, how many were
 * still open moved the JavaScript kept by up to 2.3 MiB. They are closed before sampling, as
 * the timeout would, and given this long for their close to run.
 */
const CLOSE_MS = 100
/**
 * How long the probe waits after collecting before it reads the process's memory. V8 hands
 * the pages a collection emptied back to the system from a background thread, after gc()
 * has returned: read at once, they were still resident but no longer counted in the heap,
 * and "memory outside the heap" moved by as much as 15 MiB from one sample to the next.
 */
const SETTLE_MS = 300

const servers = new Set()
const listen = http.Server.prototype.listen
http.Server.prototype.listen = function (...args) {
  servers.add(this)
  return listen.apply(this, args)
}

let probes = 0
process.on('SIGUSR2', () => {
  for (const server of servers) server.closeIdleConnections()
  setTimeout(() => {
    // Twice: the first collection can leave garbage whose finalizers only ran after it.
    globalThis.gc?.()
    globalThis.gc?.()
    setTimeout(sample, SETTLE_MS)
  }, CLOSE_MS)
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
    packages: loadedPackages(),
  }
  writeSync(2, `portico-memory-probe ${JSON.stringify(line)}\n`)
}

/** The packages whose CommonJS modules are loaded (an ES module imported them or not). */
function loadedPackages() {
  const names = new Set()
  for (const file of Object.keys(require.cache)) {
    const found = file.match(/.*node_modules\/((?:@[^/]+\/)?[^/]+)/)
    if (found) names.add(found[1])
  }
  return [...names].sort()
}
