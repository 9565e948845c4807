import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.soak.test.ts', 'node_modules/**'],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup-fast-check.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default (one fewer than the cores) is one worker on a 2-core machine, where most test
    // files spend their time waiting on the processes they start (agents, kubectl, helm): a second
    // worker keeps the other core busy meanwhile.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: ['default'],
  },
});
