// `npm run test:quick`: the quick tier of test/tiers.ts, with the full suite's settings otherwise
// (mergeConfig would add the full suite's include to the list instead of replacing it).
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';
import { QUICK_TIER } from './test/tiers.js';

export default defineConfig({ ...base, test: { ...base.test, include: [...QUICK_TIER], reporters: ['default'] } });
