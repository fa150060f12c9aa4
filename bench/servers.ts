import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import type { Person } from './prepare.js'
import { freePort, pinned } from './system.js'

/** The servers, each a process of its own, started one after another on loopback. */

export type ServerKind = 'plain' | 'portico' | 'oidc-provider' | 'limit'

export interface RunningServer {
  readonly kind: ServerKind
  readonly origin: string
  readonly pid: number
  /** Throws, with the end of the server's error output, when it has exited. */
  assertAlive(): void
  stop(): Promise<void>
}

/** The repository root; this file runs as dist/bench/servers.js. */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const BENCH_DIST = path.join(ROOT, 'dist', 'bench')
const PORTICO_CLI = path.join(ROOT, 'dist', 'cli', 'index.js')

const children = new Set<ChildProcess>()

/** Kills whatever is still running, for the exit paths that cannot wait. */
export function killAll(): void {
  for (const child of children) child.kill('SIGKILL')
}

/** Node's flags that write a CPU profile of the server into `dir` when it stops. */
const profiling = (dir: string | undefined): string[] =>
  dir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(dir)}`] : []

function launch(
  kind: ServerKind,
  cores: string | undefined,
  args: string[],
  env: NodeJS.ProcessEnv,
  stdout: 'pipe' | 'ignore' = 'pipe',
): { child: ChildProcess; tail: () => string } {
  const [command, argv] = pinned(cores, process.execPath, args)
  const child = spawn(command, argv, { env, stdio: ['ignore', stdout, 'pipe'] })
  children.add(child)
  child.on('exit', () => children.delete(child))
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000)
  })
  return { child, tail: () => `${kind} stderr:\n${stderr.trim() || '(empty)'}` }
}

function running(
  kind: ServerKind,
  origin: string,
  child: ChildProcess,
  tail: () => string,
  cleanup: () => Promise<void> = async () => {},
): RunningServer {
  const pid = child.pid
  if (pid === undefined) throw new Error(`${kind} did not start`)
  return {
    kind,
    origin,
    pid,
    assertAlive() {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`${kind} exited (${child.exitCode ?? child.signalCode})\n${tail()}`)
      }
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.kill('SIGTERM')
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
        await exited
        clearTimeout(timer)
      }
      await cleanup()
    },
  }
}

/** Waits for the JSON line {"listening": url} a bench server prints when ready. */
function listening(kind: ServerKind, child: ChildProcess, tail: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = ''
    const timer = setTimeout(
      () => reject(new Error(`${kind} did not start in 30 s\n${tail()}`)),
      30_000,
    )
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`${kind} exited (${code}) before listening\n${tail()}`))
    })
    const read = (chunk: Buffer) => {
      buffered += chunk.toString('utf8')
      const line = buffered.split('\n').find((l) => l.startsWith('{"listening"'))
      if (line) {
        clearTimeout(timer)
        // From here on the server's output (Portico's log lines) is drained unread: kept and
        // re-split at every chunk it cost the load generator's core more and more CPU.
        child.stdout?.off('data', read)
        child.stdout?.resume()
        buffered = ''
        resolve((JSON.parse(line) as { listening: string }).listening)
      }
    }
    child.stdout?.on('data', read)
  })
}

const SERVER_ENV = { PATH: process.env.PATH ?? '', NODE_ENV: 'production' }

export async function startPlain(cores: string | undefined): Promise<RunningServer> {
  const port = await freePort()
  const { child, tail } = launch(
    'plain',
    cores,
    [path.join(BENCH_DIST, 'servers', 'plain.js'), String(port)],
    SERVER_ENV,
  )
  return running('plain', await listening('plain', child, tail), child, tail)
}

/**
 * The limit server (bench/servers/limit.ts) on Portico's own database, started once Portico
 * made its schema and the bench its rows; `issuer` is the audience its tokens carry.
 */
export async function startLimit(
  cores: string | undefined,
  database: BenchDatabase,
  issuer: string,
  cpuProfileDir?: string,
): Promise<RunningServer> {
  const port = await freePort()
  const { child, tail } = launch(
    'limit',
    cores,
    [
      ...profiling(cpuProfileDir),
      path.join(BENCH_DIST, 'servers', 'limit.js'),
      String(port),
      database.url,
      issuer,
    ],
    SERVER_ENV,
  )
  return running('limit', await listening('limit', child, tail), child, tail)
}

export async function startOidcProvider(
  cores: string | undefined,
  person: Person,
): Promise<RunningServer> {
  const port = await freePort()
  const { child, tail } = launch(
    'oidc-provider',
    cores,
    [path.join(BENCH_DIST, 'servers', 'oidc-provider.js'), String(port)],
    {
      ...SERVER_ENV,
      BENCH_PERSON_EMAIL: person.email,
      BENCH_PERSON_PASSWORD: person.password,
      BENCH_PERSON_NAME: person.name,
    },
  )
  return running('oidc-provider', await listening('oidc-provider', child, tail), child, tail)
}

/** A fresh database for one run: a SQLite file in a new folder, or a new PostgreSQL database. */
export interface BenchDatabase {
  readonly url: string
  readonly dialect: 'sqlite' | 'postgres'
  drop(): Promise<void>
}

export async function createDatabase(databaseUrl: string | undefined): Promise<BenchDatabase> {
  if (databaseUrl?.startsWith('postgres')) {
    const name = `portico_bench_${randomBytes(6).toString('hex')}`
    const admin = async (statement: string) => {
      const client = new pg.Client({ connectionString: databaseUrl })
      await client.connect()
      try {
        await client.query(statement)
      } finally {
        await client.end()
      }
    }
    await admin(`create database ${name}`)
    const url = new URL(databaseUrl)
    url.pathname = `/${name}`
    return {
      url: url.toString(),
      dialect: 'postgres',
      drop: () => admin(`drop database if exists ${name} with (force)`),
    }
  }
  const folder = mkdtempSync(path.join(os.tmpdir(), 'portico-bench-'))
  return {
    url: `sqlite:${path.join(folder, 'portico.db')}`,
    dialect: 'sqlite',
    drop: async () => rmSync(folder, { recursive: true, force: true }),
  }
}

/**
 * Portico as it ships: the built `portico serve`, with its default log level, on a fresh
 * database, the bench person added beforehand with `portico users add`. Rate limits are
 * raised out of the way (they still run: every registration still counts).
 */
export async function startPortico(
  cores: string | undefined,
  database: BenchDatabase,
  person: Person,
  cpuProfileDir?: string,
): Promise<RunningServer> {
  const port = await freePort()
  const origin = `http://127.0.0.1:${port}`
  const env = {
    ...SERVER_ENV,
    PORTICO_ISSUER: origin,
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: database.url,
    LOG_LEVEL: 'info',
    PORTICO_KEY_ENCRYPTION_SECRET: randomBytes(32).toString('base64url'),
    PORTICO_REGISTRATION_RATE_LIMIT: '1000000',
    PORTICO_TOKEN_RATE_LIMIT: '1000000',
    PORTICO_ANONYMOUS_API_RATE_LIMIT: '1000000',
    PORTICO_AUTHORIZE_RATE_LIMIT: '1000000',
    PORTICO_PENDING_AUTHORIZATIONS_PER_ADDRESS: '1000000',
    PORTICO_INVALID_GRANT_LIMIT: '1000000',
  }
  await new Promise<void>((resolve, reject) => {
    const cli = execFile(
      process.execPath,
      [
        PORTICO_CLI,
        'users',
        'add',
        '--email',
        person.email,
        '--name',
        person.name,
        '--role',
        'editor',
        '--password-stdin',
      ],
      { env },
      (error, _stdout, stderr) =>
        error ? reject(new Error(`portico users add failed: ${stderr}`)) : resolve(),
    )
    cli.stdin?.end(person.password)
  })
  // Its JSON request log goes to /dev/null: written in full, read by nobody.
  const { child, tail } = launch(
    'portico',
    cores,
    [...profiling(cpuProfileDir), PORTICO_CLI, 'serve'],
    env,
    'ignore',
  )
  const server = running('portico', origin, child, tail)
  const deadline = Date.now() + 30_000
  while (!(await ready(`${origin}/readyz`))) {
    server.assertAlive()
    if (Date.now() > deadline) throw new Error(`portico was not ready in 30 s\n${tail()}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return server
}

function ready(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    http
      .get(url, (response) => {
        response.resume()
        resolve(response.statusCode === 200)
      })
      .on('error', () => resolve(false))
  })
}
