import { defineConfig } from 'vitest/config';
import LongestFirst, { DurationRecorder } from './test/longest-first.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 600_000,
    // Builds with gcc dominate; two workers match the two cores CI has.
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
    reporters: ['default', ['json', { outputFile: 'test-results.json' }], new DurationRecorder()],
  },
});
