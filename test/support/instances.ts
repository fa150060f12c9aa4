import { randomBytes } from 'node:crypto'
import type { AppDeps } from '../../src/app-deps.js'
import { parseConfig } from '../../src/config.js'
import { prepare } from '../../src/main.js'
import { createLogger } from '../../src/platform/logger.js'
import { hashPassword } from '../../src/platform/passwords.js'
import type { UserTable } from '../../src/storage/tables/oauth.js'
import { type CliServer, startCliServer } from './cli-server.js'
import { createTestDatabase, type TestDatabase } from './databases.js'
import type { FlowResult, Target, TestClient, TestPerson } from './flow.js'
import { formInit } from './http.js'
import { freePort } from './ports.js'

export const SECRET = 'test-secret-test-secret-test-secret-0123'

/** Limits no test reaches unless it sets its own. */
export const HIGH_LIMITS: Readonly<Record<string, string>> = {
  PORTICO_REGISTRATION_RATE_LIMIT: '100000',
  PORTICO_TOKEN_RATE_LIMIT: '100000',
  PORTICO_ANONYMOUS_API_RATE_LIMIT: '100000',
  PORTICO_AUTHORIZE_RATE_LIMIT: '100000',
  PORTICO_PENDING_AUTHORIZATIONS_PER_ADDRESS: '100000',
  PORTICO_INVALID_GRANT_LIMIT: '100000',
  PORTICO_CONFIRMATIONS: 'off',
}

/** Requests sent to one base URL, as the flow helpers send them. */
export function target(url: string): Target {
  return {
    fetch: (path, init) =>
      fetch(`${url}${path}`, { ...init, signal: init?.signal ?? AbortSignal.timeout(10_000) }),
  }
}

/** Several `portico serve` processes on one database, behind one issuer. */
export interface Instances {
  /** The issuer every instance shares: the address a load balancer would have. */
  readonly issuer: string
  readonly servers: readonly CliServer[]
  /** The environment every instance runs with, for `portico` commands on the same database. */
  readonly env: Readonly<Record<string, string>>
  /** The same database, seen from the test process. */
  readonly deps: AppDeps
  /** Requests to instance `index`. */
  at(index: number): Target
  /** Each request to the next instance in turn, as a round-robin load balancer sends them. */
  rotating(): Target
  /** An account created straight in the database. */
  person(role?: UserTable['role']): Promise<TestPerson>
  stop(): Promise<void>
}

export interface InstancesOptions {
  readonly env?: Readonly<Record<string, string>>
  /** Start on this database instead of a fresh one (which is dropped at stop). */
  readonly databaseUrl?: string
}

/** Starts `count` instances from the built CLI on one database, in parallel. */
export async function startInstances(
  count: number,
  options: InstancesOptions = {},
): Promise<Instances> {
  const database: TestDatabase | undefined = options.databaseUrl
    ? undefined
    : await createTestDatabase()
  const issuer = `http://127.0.0.1:${await freePort()}`
  const env = {
    DATABASE_URL: options.databaseUrl ?? database?.url ?? '',
    PORTICO_ISSUER: issuer,
    PORTICO_KEY_ENCRYPTION_SECRET: SECRET,
    ...HIGH_LIMITS,
    ...options.env,
  }
  // The test process migrates first, so the instances start on a ready schema.
  const deps = await prepare(parseConfig({ ...env, LOG_LEVEL: 'silent' }), {
    logger: createLogger('silent'),
  })
  const started = await Promise.allSettled(Array.from({ length: count }, () => startCliServer(env)))
  const servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []))
  const stop = async () => {
    await Promise.all(servers.map((s) => s.stop()))
    await deps.rateLimiter.close()
    await deps.database.close()
    await database?.drop()
  }
  const failed = started.find((s) => s.status === 'rejected')
  if (failed) {
    await stop()
    throw failed.reason
  }
  let next = 0
  let people = 0
  return {
    issuer,
    servers,
    env,
    deps,
    at: (index) => target(servers[index]?.url ?? ''),
    rotating: () => ({
      fetch: (path, init) => {
        const server = servers[next++ % servers.length]
        return target(server?.url ?? '').fetch(path, init)
      },
    }),
    async person(role = 'owner') {
      people += 1
      const email = `person${people}-${randomBytes(3).toString('hex')}@example.com`
      const password = 'correct horse battery staple'
      const user = await deps.users.insert({
        id: deps.random.id('usr'),
        email,
        name: `Person ${people}`,
        role,
        passwordHash: await hashPassword(password),
        now: deps.clock.now(),
      })
      return { user, email, password }
    },
    stop,
  }
}

/** Exchanges the code of a finished authorization flow at `at`. */
export function exchangeCode(at: Target, client: TestClient, flow: FlowResult): Promise<Response> {
  return at.fetch(
    '/api/oauth/token',
    formInit({
      grant_type: 'authorization_code',
      code: flow.code ?? '',
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      code_verifier: flow.pkce.verifier,
    }),
  )
}

/** Refreshes at `at`. */
export function refresh(at: Target, client: TestClient, refreshToken: string): Promise<Response> {
  return at.fetch(
    '/api/oauth/token',
    formInit({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: client.clientId,
    }),
  )
}

/** GET /api/v1 with a bearer token; the status says whether the token is live. */
export async function apiStatus(at: Target, accessToken: string): Promise<number> {
  const response = await at.fetch('/api/v1', {
    headers: { authorization: `Bearer ${accessToken}` },
  })
  await response.arrayBuffer()
  return response.status
}
