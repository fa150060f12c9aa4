import type { Config } from '../../config.js'
import { type RunningServer, startServer } from '../../main.js'
import { ensureSchoolAndOwner, type FirstStart } from '../../people/first-start.js'
import { createLogger, gatheredStdout } from '../../platform/logger.js'
import { tuneHeapForServing } from '../../platform/v8-heap.js'
import type { Args } from '../args.js'

/** After the grace, how long closing may still take before the process ends regardless. */
const LAST_RESORT_MS = 5_000

export async function serve(_args: Args, config: Config): Promise<number> {
  tuneHeapForServing()
  const server = await startServer(config, {
    logger: createLogger(config.logLevel, gatheredStdout()),
  })
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
    {
      url: server.url,
      issuer: config.issuer,
      database: config.database.dialect,
      ...(server.metricsUrl && { metrics: server.metricsUrl }),
    },
    'portico is listening',
  )
  // Whoever waits for the announcement sees it now, not once enough lines have gathered.
  log.flush()
  // Straight to stdout, never through the log: the password must not reach log storage.
  if (firstStart) process.stdout.write(firstStartBlock(firstStart, config.issuer))
  else if (process.stdout.isTTY) process.stdout.write(whereToStartBlock(config.issuer))
  log.info({ signal: await signal }, 'shutting down')
  return shutDown(server, config.shutdownGrace * 1000)
}

/**
 * Stops accepting, lets requests in flight finish within `graceMs`, then closes the
 * database: 0. Requests still running after the grace have their connections cut: 1.
 * Should closing hang even then (a database that does not answer), the process ends.
 */
async function shutDown(server: RunningServer, graceMs: number): Promise<number> {
  const log = server.deps.logger
  let forced = false
  const force = setTimeout(() => {
    forced = true
    log.error('in-flight requests did not finish in time: closing their connections')
    server.app.server.closeAllConnections()
    setTimeout(() => {
      log.error('shutdown did not complete: exiting')
      process.exit(1)
    }, LAST_RESORT_MS).unref()
  }, graceMs)
  force.unref()
  try {
    await server.close()
  } catch (error) {
    log.error({ err: error }, 'shutdown failed')
    return 1
  } finally {
    clearTimeout(force)
  }
  log.info('stopped')
  return forced ? 1 : 0
}

/** The first SIGTERM or SIGINT; a second one takes the default action and ends the process. */
function nextStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    process.once('SIGTERM', resolve)
    process.once('SIGINT', resolve)
  })
}

/** The one notice an operator reads on first start, written in a single write. */
export function firstStartBlock(
  { email, password, signInUrl }: FirstStart,
  issuer: string,
): string {
  return [
    '',
    '  First start: the school and its owner account were created.',
    `  Sign in at ${signInUrl}`,
    `  as ${email}`,
    `  with password ${password}`,
    '  (shown once, never again; change it with',
    `   portico users set-password --email ${email} --password-stdin)`,
    '',
    `  What clients see: ${metadataCurl(issuer)}`,
    '',
    '',
  ].join('\n')
}

/** On a terminal, every later start says where to go too (a log collector gets only JSON). */
function whereToStartBlock(issuer: string): string {
  return [
    '',
    `  Sign in at ${issuer}/login`,
    `  What clients see: ${metadataCurl(issuer)}`,
    '',
    '',
  ].join('\n')
}

/** The one command that shows the authorization server metadata (RFC 8414). */
export function metadataCurl(issuer: string): string {
  return `curl -s ${issuer}/.well-known/oauth-authorization-server`
}
