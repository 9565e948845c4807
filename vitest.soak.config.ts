import { defineConfig } from 'vitest/config';

/**
 * `npm run soak`: the long reliability runs (full chaos, 30 s control-plane load), outside
 * `npm test`. One file at a time: they measure, and they need the machine to themselves.
 */
export default defineConfig({
  test: {
    include: ['test/**/*.soak.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 900_000,
    hookTimeout: 900_000,
    pool: 'forks',
    fileParallelism: false,
    reporters: ['default'],
  },
});
