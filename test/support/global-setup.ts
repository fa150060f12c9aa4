import { spawnSync } from 'node:child_process'

/**
 * Builds dist/ once, so CLI tests run the real `portico` binary. A type error does not stop
 * the tests (tsc still emits the JavaScript they run): `npm run typecheck`, which .ci/run
 * runs before the tests, is where type errors fail the build.
 */
export function setup(): void {
  const build = spawnSync(
    process.execPath,
    ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'],
    { stdio: 'inherit' },
  )
  if (build.error) throw build.error
  if (build.status !== 0) console.warn('tsc reported type errors; see `npm run typecheck`')
}
