import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/temp-dir.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
