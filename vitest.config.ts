import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup-services.ts'],
    // Two cores on these machines: two workers, and e2e tests that are safe to run side by side
    // (free ports, a temporary config folder each).
    pool: 'forks',
    maxWorkers: 2,
    fileParallelism: true,
    // The one timeout of the suite, tests and hooks alike (no test sets its own). A test takes a
    // few seconds on a quiet machine; the margin is for a machine loaded by other work.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    disableConsoleIntercept: true,
    env: {NO_COLOR: '1'},
  },
})
