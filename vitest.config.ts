import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Two cores on these machines: two workers, and e2e tests that are safe to run side by side
    // (free ports, a temporary config folder each).
    pool: 'forks',
    maxWorkers: 2,
    fileParallelism: true,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    disableConsoleIntercept: true,
    env: {NO_COLOR: '1'},
  },
})
