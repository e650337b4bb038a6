// A fixture under fixtures/<name>/, copied to a fresh temporary directory and relocated there for
// the current test; the directory is removed when the test finishes, pass or fail.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { onTestFinished } from 'vitest';
import { instantiateFixture } from '../../scripts/instantiate-fixture.mjs';

export interface FixtureCopy {
  /** Project root of the copy (a real path). */
  root: string;
  /** Its .discopop folder. */
  dotDir: string;
}

export function useFixture(name: string): FixtureCopy {
  const copy = instantiateFixture(name);
  // The default destination is <fresh temp dir>/<name>; remove the temp dir itself.
  onTestFinished(() => rmSync(path.dirname(copy.root), { recursive: true, force: true }));
  return copy;
}
