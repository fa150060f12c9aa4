import { createLogger, type Logger } from '../../platform/logger.js'

/** Commands other than `serve` print for people; only warnings reach the log. */
export function quietLogger(): Logger {
  return createLogger('warn')
}
