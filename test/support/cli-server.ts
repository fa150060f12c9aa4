import { type ChildProcess, spawn } from 'node:child_process'
import path from 'node:path'
import { afterEach } from 'vitest'
import { createTestDatabase, type TestDatabase } from './databases.js'
import { freePort } from './ports.js'

const BIN = path.resolve('dist/cli/index.js')

/** A `portico serve` process started from the built CLI. */
export interface CliServer {
  readonly url: string
  readonly pid: number
  /** Everything the process wrote, for searching. */
  output(): string
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>
  /** Sends a signal and returns at once; `exited` tells when the process has gone. */
  kill(signal: NodeJS.Signals): void
  /** Resolves with the exit code (null after a signal) once the process has exited. */
  readonly exited: Promise<number | null>
}

/**
 * For a test file: `start(env)` runs `portico serve` (see {@link startCliServer}) on a test
 * database of its own (PostgreSQL when DATABASE_URL names one) with a key encryption secret;
 * after each test the server is stopped and the database dropped.
 */
export function useCliServer(): (env?: Record<string, string>) => Promise<CliServer> {
  let database: TestDatabase | undefined
  let server: CliServer | undefined
  afterEach(async () => {
    await server?.stop()
    server = undefined
    await database?.drop()
    database = undefined
  })
  return async (env = {}) => {
    database = await createTestDatabase()
    server = await startCliServer({
      DATABASE_URL: database.url,
      PORTICO_KEY_ENCRYPTION_SECRET: 'test-secret-test-secret-test-secret-0123',
      ...env,
    })
    return server
  }
}

/**
 * Starts `portico serve` on a free port of 127.0.0.1 with the given environment and waits
 * until /healthz answers. The issuer is the URL it listens on.
 */
export async function startCliServer(env: Record<string, string>): Promise<CliServer> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: {
      PATH: process.env.PATH ?? '',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      PORT: String(port),
      PORTICO_ISSUER: url,
      PORTICO_CONFIRMATIONS: 'off',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (d) => {
    output += String(d)
  })
  child.stderr?.on('data', (d) => {
    output += String(d)
  })
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  )
  try {
    await waitUntilHealthy(url, child)
  } catch (error) {
    child.kill('SIGKILL')
    throw new Error(`portico serve did not start: ${String(error)}\n${output}`)
  }
  return {
    url,
    pid: child.pid ?? 0,
    exited,
    kill: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
    },
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
      const code = await exited
      clearTimeout(timer)
      return code
    },
  }
}

async function waitUntilHealthy(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 20_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}`)
    try {
      const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) })
      if (response.ok) return
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error('timed out')
}
