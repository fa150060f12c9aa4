import { execFile } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { freePort } from './ports.js'

const run = promisify(execFile)

/**
 * A PostgreSQL server that one test owns: created in a temporary folder on a free port of
 * 127.0.0.1, so the test can stop, start and freeze it without touching anyone else's.
 */
export interface OwnedPostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  readonly url: string
  /** A fast shutdown: sessions are terminated, new connections refused. */
  stop(): Promise<void>
  start(): Promise<void>
  /** SIGSTOP to the server and its backends: connections hang instead of failing. */
  freeze(): Promise<void>
  thaw(): Promise<void>
  destroy(): Promise<void>
}

/** The folder holding initdb and pg_ctl, or undefined when this machine has none. */
export function findPostgresBinaries(): string | undefined {
  const root = '/usr/lib/postgresql'
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : []
  for (const version of versions) {
    const bin = path.join(root, version, 'bin')
    if (existsSync(path.join(bin, 'initdb')) && existsSync(path.join(bin, 'pg_ctl'))) return bin
  }
  return undefined
}

/** Why an owned server cannot be made here, or undefined when it can. */
export function ownedPostgresUnavailable(): string | undefined {
  if (!findPostgresBinaries()) return 'no initdb/pg_ctl under /usr/lib/postgresql/*/bin'
  if (process.getuid?.() === 0 && !existsSync('/usr/sbin/runuser') && !existsSync('/sbin/runuser'))
    return 'running as root without runuser to start PostgreSQL as postgres'
  return undefined
}

/**
 * Creates and starts a throwaway cluster. PostgreSQL refuses to run as root, so as root it
 * runs as the `postgres` account, in a folder handed to that account.
 */
export async function startOwnedPostgres(): Promise<OwnedPostgres> {
  const bin = findPostgresBinaries()
  if (!bin) throw new Error('no PostgreSQL binaries on this machine')
  const folder = mkdtempSync(path.join(tmpdir(), 'portico-pg-'))
  const data = path.join(folder, 'data')
  const asRoot = process.getuid?.() === 0
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres'])
    const { stdout: gid } = await run('id', ['-g', 'postgres'])
    chownSync(folder, Number(stdout.trim()), Number(gid.trim()))
  }
  const pg = (tool: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', path.join(bin, tool), ...args], { timeout: 60_000 })
      : run(path.join(bin, tool), args, { timeout: 60_000 })
  const port = await freePort()
  await pg('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8'])
  const options = [
    `-p ${port}`,
    `-k ${folder}`,
    '-c listen_addresses=127.0.0.1',
    '-c fsync=off',
    '-c full_page_writes=off',
    '-c synchronous_commit=off',
    '-c max_connections=50',
  ].join(' ')
  const start = async () => {
    await pg('pg_ctl', ['-D', data, '-o', options, '-l', path.join(folder, 'log'), '-w', 'start'])
  }
  const stop = async (mode: 'fast' | 'immediate') => {
    await pg('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop'])
  }
  /** The postmaster and every process it started. */
  const processes = async (): Promise<number[]> => {
    const postmaster = Number(
      readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0],
    )
    const { stdout } = await run('ps', ['-o', 'pid=', '--ppid', String(postmaster)])
    return [postmaster, ...stdout.split('\n').filter(Boolean).map(Number)]
  }
  const signal = async (name: NodeJS.Signals) => {
    for (const pid of await processes()) {
      try {
        process.kill(pid, name)
      } catch {
        // gone meanwhile
      }
    }
  }
  await start()
  let running = true
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      await stop('fast')
      running = false
    },
    async start() {
      await start()
      running = true
    },
    freeze: () => signal('SIGSTOP'),
    thaw: () => signal('SIGCONT'),
    async destroy() {
      if (running) {
        await signal('SIGCONT').catch(() => {})
        await stop('immediate').catch(() => {})
      }
      rmSync(folder, { recursive: true, force: true })
    },
  }
}
