import { spawn } from 'node:child_process'
import path from 'node:path'

export interface CliResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const BIN = path.resolve('dist/cli/index.js')

/** Runs the built `portico` command with the given arguments, environment and standard input. */
export function runCli(
  args: readonly string[],
  env: Record<string, string>,
  stdin?: string,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: 30_000,
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => {
      stdout += String(d)
    })
    child.stderr.on('data', (d) => {
      stderr += String(d)
    })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
    // A command that never reads its input (`--help`, a typo) may exit before the pipe is
    // written: the write then fails with EPIPE, which says nothing about the command. Its exit
    // code and output are the result; any other error on the pipe still fails the test.
    child.stdin.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') reject(error)
    })
    if (stdin === undefined) child.stdin.end()
    else child.stdin.end(stdin)
  })
}
