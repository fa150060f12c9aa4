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
const GATHER_BYTES = 8192
const GATHER_MS = 250
/** What may wait for a stalled reader of the log; lines past it are dropped, not kept. */
const MOST_WAITING_BYTES = 16 * 1024 * 1024

/**
 * Standard output for a running server's log: lines gathered up to 8 KB, or for a quarter of
 * a second at most, and written together, still asynchronously: a stalled reader of the log
 * never blocks a request (nor holds more than 16 MB). Written one by one, each request's
 * line was its own write through libuv's thread pool: 9 % of the CPU of a GET of one course
 * (npm run bench, profiled). pino writes out what is gathered when the process exits, a
 * crash included; a kill -9 or a power cut loses at most the last quarter second.
 */
export function gatheredStdout(): DestinationStream {
  return pino.destination({
    dest: 1,
    sync: false,
    minLength: GATHER_BYTES,
    periodicFlush: GATHER_MS,
    maxLength: MOST_WAITING_BYTES,
  })
}
