import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import path from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/config.js'
import { prepare } from '../../src/main.js'
import { createLogger } from '../../src/platform/logger.js'
import { verifyPassword } from '../../src/platform/passwords.js'
import { createTestDatabase, type TestDatabase } from '../support/databases.js'
import { freePort } from '../support/ports.js'

const BIN = path.resolve('dist/cli/index.js')
const SECRET = 'test-secret-test-secret-test-secret-0123'
const BLOCK = /First start:[\s\S]*Sign in at (\S+)\n\s+as (\S+)\n\s+with password (\S+)\n/g

/** A `portico serve` child process and everything it printed. */
interface Serve {
  readonly issuer: string
  stdout: string
  stderr: string
  /** Resolves once the server logged that it listens. */
  readonly listening: Promise<void>
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>
}

const running: ChildProcessWithoutNullStreams[] = []
afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null) child.kill('SIGKILL')
})

async function serve(database: TestDatabase): Promise<Serve> {
  const port = await freePort()
  const issuer = `http://127.0.0.1:${port}`
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: database.url,
      PORTICO_KEY_ENCRYPTION_SECRET: SECRET,
      PORTICO_ISSUER: issuer,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'info',
    },
  })
  running.push(child)
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
  const result: Serve = {
    issuer,
    stdout: '',
    stderr: '',
    listening: new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`serve did not start:\n${result.stderr}`)),
        20_000,
      )
      child.stdout.on('data', (chunk) => {
        result.stdout += String(chunk)
        if (result.stdout.includes('portico is listening')) {
          clearTimeout(timer)
          resolve()
        }
      })
      exited.then((code) => reject(new Error(`serve exited with ${code}:\n${result.stderr}`)))
    }),
    async stop() {
      child.kill('SIGTERM')
      return exited
    },
  }
  child.stderr.on('data', (chunk) => {
    result.stderr += String(chunk)
  })
  return result
}

function blocks(output: string) {
  return [...output.matchAll(BLOCK)].map(([, url, email, password]) => ({ url, email, password }))
}

const databases: TestDatabase[] = []
afterAll(async () => {
  await Promise.all(databases.map((d) => d.drop()))
})

describe('portico serve on a fresh database', () => {
  it('prints the first-start block once, and nothing of the kind on the next start', async () => {
    const database = await createTestDatabase()
    databases.push(database)

    const first = await serve(database)
    await first.listening
    expect(await first.stop()).toBe(0)
    const shown = blocks(first.stdout)
    expect(shown).toEqual([
      { url: `${first.issuer}/login`, email: 'owner@school.invalid', password: expect.any(String) },
    ])
    expect(first.stdout.match(/First start/g)).toHaveLength(1)
    expect(first.stdout).toContain('portico users set-password --email owner@school.invalid')
    const password = shown[0]?.password ?? ''
    expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/)
    // Only the block carries it; no JSON log line does.
    const logLines = first.stdout.split('\n').filter((line) => line.startsWith('{'))
    expect(logLines.length).toBeGreaterThan(0)
    expect(logLines.join('\n')).not.toContain(password)
    expect(first.stderr).not.toContain(password)

    const deps = await prepare(
      parseConfig({ DATABASE_URL: database.url, PORTICO_KEY_ENCRYPTION_SECRET: SECRET }),
      {
        logger: createLogger('silent'),
      },
    )
    try {
      const credentials = await deps.users.findCredentials('owner@school.invalid')
      expect(credentials?.user.role).toBe('owner')
      expect(await verifyPassword(password, credentials?.passwordHash)).toBe(true)
    } finally {
      await deps.database.close()
    }

    const second = await serve(database)
    await second.listening
    expect(await second.stop()).toBe(0)
    expect(second.stdout).not.toMatch(/First start|password/)
  })

  it('prints it from exactly one of two instances that start together', async () => {
    const database = await createTestDatabase()
    databases.push(database)
    const instances = await Promise.all([serve(database), serve(database)])
    await Promise.all(instances.map((i) => i.listening))
    expect(await Promise.all(instances.map((i) => i.stop()))).toEqual([0, 0])
    expect(instances.flatMap((i) => blocks(i.stdout))).toHaveLength(1)
  })
})
