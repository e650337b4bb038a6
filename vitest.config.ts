import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 600_000,
    // Builds with gcc dominate; two workers match the two cores CI has.
    maxWorkers: 2,
    reporters: ['default', ['json', { outputFile: 'test-results.json' }]],
  },
});
