import { type DestinationStream, type Logger, pino } from 'pino'
import type { LogLevel } from '../config.js'

export type { Logger }

/**
 * Structured JSON logs. Headers that carry credentials are redacted wherever they appear;
 * request lines are logged without their query string (see http/app.ts).
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service: 'portico' },
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'res.headers["set-cookie"]',
        '*.password',
        '*.client_secret',
        '*.token',
        '*.code',
        '*.refresh_token',
        '*.access_token',
      ],
      censor: '[redacted]',
    },
  }
  return destination ? pino(options, destination) : pino(options)
}

/**
 * The same logger without redaction, for lines made only of values Portico produces and
 * knows to be harmless (the request line: method, path, status, time). Redacting cost
 * more than writing such a line (npm run bench, profiled); everything else keeps it.
 */
export function unredacted(logger: Logger): Logger {
  return logger.child({}, { redact: { paths: [], censor: '[redacted]' } })
}
