import { spawn } from 'node:child_process'

/** How long an opener may run before it counts as having opened the browser. */
const SETTLE_MS = 3000

/**
 * Opens `url` in the person's browser: `$PORTICO_CLI_BROWSER` (a shell command that gets
 * the URL as its last argument) when set, else the platform's opener (`xdg-open`, `open`).
 * Resolves false when nothing could be opened, so the caller prints the URL instead.
 */
export function openBrowser(url: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  const custom = env.PORTICO_CLI_BROWSER
  const [command, args] = custom
    ? ['/bin/sh', ['-c', `${custom} "$1"`, 'portico-cli-browser', url]]
    : process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['rundll32', ['url.dll,FileProtocolHandler', url]]
        : ['xdg-open', [url]]
  return new Promise((resolve) => {
    let settled = false
    const settle = (opened: boolean) => {
      if (settled) return
      settled = true
      resolve(opened)
    }
    const child = spawn(command, args, { stdio: 'ignore', detached: !custom, env })
    child.once('error', () => settle(false))
    child.once('exit', (code) => settle(code === 0))
    const timer = setTimeout(() => {
      // Still running: some openers stay until the browser closes. Let it be.
      child.unref()
      settle(true)
    }, SETTLE_MS)
    timer.unref()
  })
}
