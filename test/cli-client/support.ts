import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Browser as Chromium, Page } from 'playwright-core'
import { newPage, saveScreenshot } from '../support/browser.js'
import type { TestPerson } from '../support/flow.js'

const BIN = path.resolve('dist/cli-client/index.js')

export interface CliResult {
  readonly code: number | null
  /** Set when the process was killed: SIGTERM after CLI_TIMEOUT_MS means it hung. */
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * How long one portico-cli run may take before it is killed: below the tests' 60 s, so that
 * a run that hangs fails its test with its output and signal instead of a bare test timeout.
 */
const CLI_TIMEOUT_MS = 45_000

/** A running `portico-cli`, for commands that wait on the browser. */
export interface RunningCli {
  readonly child: ChildProcess
  readonly done: Promise<CliResult>
  stderr(): string
}

/**
 * A home for one simulated person's portico-cli: its configuration directory, and a
 * PORTICO_CLI_BROWSER that, instead of opening a browser, writes the URL to a file the
 * test reads to drive Chromium there.
 */
export interface CliHome {
  readonly root: string
  /** The environment portico-cli runs with (config under $XDG_CONFIG_HOME/portico-cli). */
  readonly env: Record<string, string>
  readonly configDir: string
  /** The URL portico-cli asked the browser to open, once it has. */
  openedUrl(timeoutMs?: number): Promise<string>
  remove(): void
}

export function createCliHome(): CliHome {
  const root = mkdtempSync(path.join(tmpdir(), 'portico-cli-test-'))
  const opened = path.join(root, 'opened-url')
  return {
    root,
    configDir: path.join(root, 'config', 'portico-cli'),
    env: {
      PATH: process.env.PATH ?? '',
      HOME: root,
      XDG_CONFIG_HOME: path.join(root, 'config'),
      PORTICO_CLI_BROWSER: `printf '%s\\n' >'${opened}'`,
    },
    async openedUrl(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs
      while (Date.now() < deadline) {
        try {
          const url = readFileSync(opened, 'utf8').trim()
          if (url) {
            rmSync(opened)
            return url
          }
        } catch {
          // not yet written
        }
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
      throw new Error('portico-cli did not open a browser in time')
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  }
}

/** Starts `portico-cli` with arguments and environment, without waiting for it. */
export function startCli(args: readonly string[], env: Record<string, string>): RunningCli {
  const child = spawn(process.execPath, [BIN, ...args], {
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
    timeout: CLI_TIMEOUT_MS,
  })
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (d) => {
    stdout += String(d)
  })
  child.stderr?.on('data', (d) => {
    stderr += String(d)
  })
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }))
  })
  return { child, done, stderr: () => stderr }
}

/** Runs `portico-cli` to the end. */
export function runCli(
  args: readonly string[],
  env: Record<string, string>,
  stdin = '',
): Promise<CliResult> {
  const running = startCli(args, env)
  running.child.stdin?.end(stdin)
  return running.done
}

/**
 * Plays the person in Chromium at the URL portico-cli opened: signs in on the real login
 * page, approves or denies on the consent page, and returns the page the browser ends on
 * (portico-cli's own callback page).
 */
export async function decideInChromium(
  chromium: Chromium,
  url: string,
  person: TestPerson,
  decision: 'Approve' | 'Deny',
  screenshot?: string,
): Promise<Page> {
  const page = await newPage(chromium)
  await page.goto(url)
  await page.fill('#email', person.email)
  await page.fill('#password', person.password)
  await page.click('button[type=submit]:has-text("Sign in")')
  await page.waitForSelector('form.decision')
  if (screenshot) await saveScreenshot(page, `${screenshot}-consent`)
  await Promise.all([
    page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/),
    page.click(`form.decision button:has-text("${decision}")`),
  ])
  await page.waitForSelector('h1')
  if (screenshot) await saveScreenshot(page, `${screenshot}-callback`)
  return page
}

/** `portico-cli login` driven to the end in Chromium; resolves with its result. */
export async function loginWithChromium(
  chromium: Chromium,
  home: CliHome,
  server: string,
  person: TestPerson,
  options: {
    scope?: string
    decision?: 'Approve' | 'Deny'
    screenshot?: string
    extraArgs?: readonly string[]
  } = {},
): Promise<{ result: CliResult; page: Page }> {
  const args = [
    'login',
    '--server',
    server,
    ...(options.scope ? ['--scope', options.scope] : []),
    ...(options.extraArgs ?? []),
  ]
  const running = startCli(args, home.env)
  const url = await Promise.race([
    home.openedUrl(),
    running.done.then((result) => {
      throw new Error(`portico-cli ended before opening a browser: ${JSON.stringify(result)}`)
    }),
  ])
  const page = await decideInChromium(
    chromium,
    url,
    person,
    options.decision ?? 'Approve',
    options.screenshot,
  )
  const result = await running.done
  return { result, page }
}
