import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // In this order: the server keeps its data in the run's temporary directory.
    globalSetup: ['test/support/temp-dir.ts', 'test/support/postgres-server.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
