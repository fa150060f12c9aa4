import { type ChildProcess, spawn } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FromLoader, LoadJob, LoadResult, ToLoader } from './load-protocol.js'
import { pinned } from './system.js'

/** The orchestrator's handle on the load-generator process (bench/load.ts). */
export class Loader {
  private readonly child: ChildProcess
  private nextId = 1
  private readonly pending = new Map<
    number,
    { onWarmed: () => void; resolve: (r: LoadResult) => void; reject: (e: Error) => void }
  >()

  constructor(cores: string | undefined) {
    const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'load.js')
    const [command, args] = pinned(cores, process.execPath, [script])
    this.child = spawn(command, args, {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production' },
    })
    this.child.on('message', (message: FromLoader) => this.receive(message))
    this.child.on('exit', (code, signal) => {
      for (const { reject } of this.pending.values()) {
        reject(new Error(`the load generator exited (${code ?? signal})`))
      }
      this.pending.clear()
    })
  }

  /**
   * Runs a job: warm-up, then `onWarmed` (read the server's counters there), then the
   * measurement.
   */
  run(job: LoadJob, onWarmed: () => void): Promise<LoadResult> {
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      this.pending.set(id, { onWarmed, resolve, reject })
      this.send({ type: 'job', id, job })
    })
  }

  close(): void {
    if (this.child.connected) this.child.disconnect()
    this.child.kill()
  }

  private send(message: ToLoader): void {
    this.child.send(message)
  }

  private receive(message: FromLoader): void {
    const waiting = this.pending.get(message.id)
    if (!waiting) return
    if (message.type === 'warmed') {
      try {
        waiting.onWarmed()
        this.send({ type: 'go', id: message.id })
      } catch (error) {
        this.pending.delete(message.id)
        waiting.reject(error as Error)
      }
      return
    }
    this.pending.delete(message.id)
    if (message.type === 'done') waiting.resolve(message.result)
    else waiting.reject(new Error(`load generator: ${message.message}`))
  }
}
