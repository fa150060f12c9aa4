import path from 'node:path'
import { Worker } from 'node:worker_threads'
import { SQLITE_DRIVER_PATH } from './sqlite-driver.js'

/** How often the checkpointer copies the WAL into the database. */
const CHECKPOINT_INTERVAL_MS = 200
/** WAL frames past which the checkpointer asks the connection to finish its checkpoint. */
const RESTART_FRAMES = 1000
/** Frames the connection is left to copy at most, the checkpointer passing again until so. */
const TAIL_FRAMES = 200
/** WAL pages past which a commit checkpoints by itself, should the checkpointer lag. */
export const FALLBACK_CHECKPOINT_PAGES = 10_000

const CHECKPOINTER = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
const db = new Database(workerData.file, { timeout: 5000 })
// Prepared once and kept: no statement of this thread is ever garbage. better-sqlite3 12's
// statements are node::ObjectWrap objects, and on Node 24 one collected by a GC that runs
// outside JavaScript (in this thread, between intervals) aborts the process.
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)')
const timer = setInterval(() => {
  try {
    let copied = 0
    for (let pass = 0; pass < 4; pass++) {
      const result = checkpoint.get()
      if (result.busy !== 0 || result.log < workerData.restartFrames) return
      const fresh = result.checkpointed - copied
      copied = result.checkpointed
      if (pass > 0 && fresh <= workerData.tailFrames) break
    }
    parentPort.postMessage(0)
  } catch {}
}, workerData.intervalMs)
// Stopped by a message, never terminated: a thread terminated while better-sqlite3 12 is in
// native code (opening, preparing) that then fails aborts the whole process (V8 cannot make
// the error of an isolate being torn down: "FATAL ERROR: v8::ToLocalChecked Empty MaybeLocal").
parentPort.on('message', () => {
  clearInterval(timer)
  try {
    db.close()
  } catch {}
  parentPort.close()
})
`

/**
 * A thread with its own connection that checkpoints the WAL (copies it into the database
 * file, then fsyncs) every 200 ms. SQLite otherwise checkpoints inside the commit that
 * crosses 1000 WAL pages, on the event loop: the token endpoint then waited for the disk
 * for longer than it ran its queries, with stalls of 10–40 ms (npm run bench, profiled).
 * PASSIVE never blocks a writer; durability is unchanged (synchronous = NORMAL in WAL mode
 * either way). Undefined when no thread can be started: commits then checkpoint as before.
 *
 * Copying alone does not keep the WAL short: SQLite starts it over only at a write that
 * finds every frame copied, and under steady load commits land while the thread copies
 * and fsyncs. The WAL then grew to the fallback's 10,000 pages every quarter second and
 * that commit checkpointed the lot on the event loop (20–40 ms, the refresh grant's p99).
 * So once the WAL is long, the thread passes again (up to four times) until a pass finds
 * few new frames, then asks the connection to copy the few written since (`onTail`, between
 * transactions): a checkpoint of a short tail, after which the next commit starts the WAL
 * over. The refresh grant's p99 went from about 35 ms to under 20 (npm run bench).
 */
export interface Checkpointer {
  /**
   * Asks the thread to close its connection and end, once it is between two passes; settles
   * when it has ended (its connection's files are then the database's to remove).
   */
  stop(): Promise<void>
}

/** How long a stop may take before the thread is ended by force (it is long past starting). */
const STOP_WAIT_MS = 5000

export function startCheckpointer(
  file: string,
  onFailure: () => void,
  onTail: () => void,
): Checkpointer | undefined {
  try {
    const worker = new Worker(CHECKPOINTER, {
      eval: true,
      workerData: {
        driver: SQLITE_DRIVER_PATH,
        file: path.resolve(file),
        intervalMs: CHECKPOINT_INTERVAL_MS,
        restartFrames: RESTART_FRAMES,
        tailFrames: TAIL_FRAMES,
      },
    })
    worker.on('error', onFailure)
    worker.on('message', onTail)
    worker.unref()
    const ended = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
    return {
      stop: () => {
        worker.postMessage('stop')
        const force = setTimeout(() => void worker.terminate(), STOP_WAIT_MS)
        return ended.finally(() => clearTimeout(force))
      },
    }
  } catch {
    return undefined
  }
}
