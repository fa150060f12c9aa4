import { defineConfig } from 'vitest/config'

/**
 * Files that replace a module (vi.mock) need a module graph of their own; every other file
 * shares its worker's, so the application is imported once per worker instead of once per
 * file (a third of the suite's time).
 */
const ISOLATED = ['test/security/client-secrets.test.ts']

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: more workers than that only queue behind each other.
    maxWorkers: 2,
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: ISOLATED,
          isolate: false,
        },
      },
      { extends: true, test: { name: 'isolated', include: ISOLATED, isolate: true } },
    ],
  },
})
