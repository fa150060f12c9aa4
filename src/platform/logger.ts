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
 * most, and written together, synchronously. Writing each request's line on its own through
 * libuv's thread pool (pino's default) cost more CPU than the rest of a single-record API
 * read (npm run bench, same runs: GET of one course 1.48× the limit server's CPU with the
 * lines gathered but written through the thread pool, 1.26× written synchronously, 1.19×
 * with no request log at all; the account 1.81×, 1.17×, 1.14×). What is gathered is written
 * when the process exits, a crash included; a kill -9 or a power cut loses at most the last
 * second. A reader that stops reading blocks the server once the pipe is full, as it would
 * have made the thread pool's writes pile up in memory.
 */
export function gatheredStdout(): DestinationStream {
  const stream = pino.destination({
    dest: 1,
    sync: true,
    minLength: GATHER_BYTES,
    periodicFlush: GATHER_MS,
  })
  // pino writes out at exit only what its asynchronous destinations hold: this one is ours.
  process.once('exit', () => {
    try {
      stream.flushSync()
    } catch {
      // Standard output is gone (closed, or its reader ended): nothing can be written.
    }
  })
  return stream
}
