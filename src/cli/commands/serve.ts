import type { Config } from '../../config.js'
import { startServer } from '../../main.js'
import { ensureSchoolAndOwner, type FirstStart } from '../../people/first-start.js'
import type { Args } from '../args.js'

/** How long in-flight requests may take to finish after SIGTERM. */
const SHUTDOWN_GRACE_MS = 10_000

export async function serve(_args: Args, config: Config): Promise<number> {
  const server = await startServer(config)
  const log = server.deps.logger
  // Listening for signals before anything is announced: whoever sees the announcement and
  // stops the server at once gets a clean shutdown, not the default kill.
  const signal = nextStopSignal()
  let firstStart: FirstStart | undefined
  try {
    firstStart = await ensureSchoolAndOwner(server.deps)
  } catch (error) {
    await server.close()
    throw error
  }
  log.info(
    { url: server.url, issuer: config.issuer, database: config.database.dialect },
    'portico is listening',
  )
  // Straight to stdout, never through the log: the password must not reach log storage.
  if (firstStart) process.stdout.write(firstStartBlock(firstStart))
  log.info({ signal: await signal }, 'shutting down')
  return new Promise<number>((resolve) => {
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
  })
}

/** The first SIGTERM or SIGINT; a second one takes the default action and ends the process. */
function nextStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    process.once('SIGTERM', resolve)
    process.once('SIGINT', resolve)
  })
}

/** The one notice an operator reads on first start, written in a single write. */
export function firstStartBlock({ email, password, signInUrl }: FirstStart): string {
  return [
    '',
    '  First start: the school and its owner account were created.',
    `  Sign in at ${signInUrl}`,
    `  as ${email}`,
    `  with password ${password}`,
    '  (shown once, never again; change it with',
    `   portico users set-password --email ${email} --password-stdin)`,
    '',
    '',
  ].join('\n')
}
