import { execFileSync } from 'node:child_process'

/** Builds dist/ once, so CLI tests run the real `portico` binary. */
export function setup(): void {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    stdio: 'inherit',
  })
}
