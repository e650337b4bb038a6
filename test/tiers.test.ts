// Every test file is in exactly one tier (test/tiers.ts), and no quick file needs what only the
// full tier has, so `npm run test:quick` stays runnable without a build, a cluster, a browser or an
// agent CLI, and a new file cannot fall out of both.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';
import { expect, it } from 'vitest';
import { FULL_TIER, FULL_TIER_ONLY, QUICK_TIER } from './tiers.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const files = (patterns: readonly string[]) => new Set(fg.sync([...patterns], { cwd: root }));

it('puts every test file in exactly one tier', () => {
  const quick = files(QUICK_TIER);
  const full = files(FULL_TIER);
  const problems = [...files(['test/**/*.test.ts'])].sort().flatMap((file) => {
    if (quick.has(file) && full.has(file)) return [`${file}: in both tiers of test/tiers.ts`];
    if (!quick.has(file) && !full.has(file))
      return [`${file}: in neither tier: add it to QUICK_TIER or FULL_TIER in test/tiers.ts`];
    return [];
  });
  expect(problems).toEqual([]);
});

it('names no file in the tiers that does not exist', () => {
  const stale = [...QUICK_TIER, ...FULL_TIER].filter((pattern) => files([pattern]).size === 0);
  expect(stale).toEqual([]);
});

it('keeps out of the quick tier what needs the build, the cluster, the browser or an agent CLI', () => {
  const problems = [...files(QUICK_TIER)].sort().flatMap((file) => {
    const text = readFileSync(path.join(root, file), 'utf8');
    return FULL_TIER_ONLY.filter(({ pattern }) => pattern.test(text)).map(
      ({ needs }) => `${file}: needs ${needs}: move it to FULL_TIER`,
    );
  });
  expect(problems).toEqual([]);
});
