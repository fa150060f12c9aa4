import type { Config } from '../../config.js'
import { startServer } from '../../main.js'
import type { Args } from '../args.js'

/** How long in-flight requests may take to finish after SIGTERM. */
const SHUTDOWN_GRACE_MS = 10_000

export async function serve(_args: Args, config: Config): Promise<number> {
  const server = await startServer(config)
  const log = server.deps.logger
  log.info(
    { url: server.url, issuer: config.issuer, database: config.database.dialect },
    'portico is listening',
  )
  return new Promise<number>((resolve) => {
    let stopping = false
    const stop = (signal: string) => {
      if (stopping) return
      stopping = true
      log.info({ signal }, 'shutting down')
      const force = setTimeout(() => {
        log.error('in-flight requests did not finish in time')
        resolve(1)
      }, SHUTDOWN_GRACE_MS)
      force.unref()
      server.close().then(
        () => {
          clearTimeout(force)
          resolve(0)
        },
        (error: unknown) => {
          log.error({ err: error }, 'shutdown failed')
          resolve(1)
        },
      )
    }
    process.once('SIGTERM', () => stop('SIGTERM'))
    process.once('SIGINT', () => stop('SIGINT'))
  })
}
