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

/** Bytes of log lines gathered before they are written, and the longest they wait. */
const GATHER_BYTES = 4096
const GATHER_MS = 1000

/**
 * Standard output for a running server's log: lines gathered up to 4 KB, or for a second at
 * most, and written together. Writing each request's line on its own handed every line to
 * libuv's thread pool and cost more CPU than the rest of a single-record API read (npm run
 * bench: GET of one course 1.63× the limit server's CPU with the request line, 1.28× with no
 * request log at all). pino writes out what is gathered when the process exits, a crash
 * included; a kill -9 or a power cut loses at most the last second.
 */
export function gatheredStdout(): DestinationStream {
  return pino.destination({
    dest: 1,
    sync: false,
    minLength: GATHER_BYTES,
    periodicFlush: GATHER_MS,
  })
}
