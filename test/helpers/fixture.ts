// A fixture under fixtures/<name>/, copied to a fresh temporary directory and relocated there for
// the current test; the directory is removed when the test finishes, pass or fail.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { onTestFinished, type TestContext } from 'vitest';
import { instantiateFixture } from '../../scripts/instantiate-fixture.mjs';

export interface FixtureCopy {
  /** Project root of the copy (a real path). */
  root: string;
  /** Its .discopop folder. */
  dotDir: string;
}

/**
 * A concurrent test passes its own context: vitest's global onTestFinished may then belong to
 * another test of the block, and remove this copy while this test still uses it.
 */
export function useFixture(name: string, test?: Pick<TestContext, 'onTestFinished'>): FixtureCopy {
  const copy = instantiateFixture(name);
  // The default destination is <fresh temp dir>/<name>; remove the temp dir itself.
  (test?.onTestFinished ?? onTestFinished)(() => rmSync(path.dirname(copy.root), { recursive: true, force: true }));
  return copy;
}
