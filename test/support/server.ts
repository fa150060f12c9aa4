import { Writable } from 'node:stream'
import { parseConfig } from '../../src/config.js'
import { type Overrides, type RunningServer, startServer } from '../../src/main.js'
import { createLogger } from '../../src/platform/logger.js'
import { createTestDatabase } from './databases.js'
import { freePort } from './ports.js'

export interface TestServer extends RunningServer {
  /** The issuer, equal to the URL the server listens on. */
  readonly issuer: string
  /** Every log line the server wrote, as parsed JSON. */
  readonly logs: Array<Record<string, unknown>>
  /** The raw log text, for searching for secrets. */
  logText(): string
  /** fetch() relative to the server. */
  fetch(path: string, init?: RequestInit): Promise<Response>
}

export interface TestServerOptions extends Omit<Overrides, 'logger'> {
  /** Extra environment, e.g. { PORTICO_REGISTRATION_RATE_LIMIT: '5' }. */
  readonly env?: Record<string, string>
}

/**
 * Starts a real Portico on a free port of 127.0.0.1 (./ports.ts) with a database of its own
 * (PostgreSQL when DATABASE_URL names one, SQLite otherwise).
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const port = await freePort()
  const database = await createTestDatabase()
  const issuer = `http://127.0.0.1:${port}`
  const config = parseConfig({
    PORTICO_ISSUER: issuer,
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: database.url,
    LOG_LEVEL: 'info',
    PORTICO_KEY_ENCRYPTION_SECRET: 'test-secret-test-secret-test-secret-0123',
    PORTICO_REGISTRATION_RATE_LIMIT: '1000',
    PORTICO_TOKEN_RATE_LIMIT: '100000',
    PORTICO_ANONYMOUS_API_RATE_LIMIT: '100000',
    PORTICO_AUTHORIZE_RATE_LIMIT: '100000',
    PORTICO_PENDING_AUTHORIZATIONS_PER_ADDRESS: '100000',
    PORTICO_INVALID_GRANT_LIMIT: '100000',
    // No call waits for a yes unless a test turns confirmations on (test/http/approvals).
    PORTICO_CONFIRMATIONS: 'off',
    ...options.env,
  })
  const lines: string[] = []
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(...String(chunk).split('\n').filter(Boolean))
      callback()
    },
  })
  let server: RunningServer
  try {
    server = await startServer(config, { ...options, logger: createLogger('info', sink) })
  } catch (error) {
    await database.drop()
    throw error
  }
  return {
    ...server,
    issuer,
    get logs() {
      return lines.map((line) => JSON.parse(line) as Record<string, unknown>)
    },
    logText: () => lines.join('\n'),
    fetch: (path, init) =>
      fetch(`${issuer}${path}`, { ...init, signal: init?.signal ?? AbortSignal.timeout(10_000) }),
    async close() {
      await server.close()
      await database.drop()
    },
  }
}
