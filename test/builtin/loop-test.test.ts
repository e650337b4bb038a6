// The loop-test rewrite on each algebraic form it accepts, under gcc and clang: the header it
// writes, and the forms it must hand on because the rewrite could change the iteration count.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinRepair } from '../../src/builtin/index.js';
import { COMPILERS, prepareFixture } from './harness.js';

const CASES = [
  { header: 'for (int i = 0; i + 1 <= n; i++)', rewritten: 'for (int i = 0; i <= n - 1; i++)' },
  { header: 'for (int i = 0; 2 + i < n; i++)', rewritten: 'for (int i = 0; i < n - 2; i++)' },
  { header: 'for (int i = 0; n >= i + 3; i += 1)', rewritten: 'for (int i = 0; i <= n - 3; i += 1)' },
  { header: 'for (int i = 1; i - 1 < n; i++)', rewritten: 'for (int i = 1; i < n + 1; i++)' },
  { header: 'for (unsigned i = 0; i + 2 < n; i++)', rewritten: 'for (unsigned i = 0; i < (n > 2 ? n - 2 : 0); i++)' },
  {
    header: 'for (unsigned i = 0; i + 2 <= n; i++)',
    rewritten: 'for (unsigned i = 0; i < (n >= 2 ? n - 2 + 1 : 0); i++)',
  },
  { header: 'for (int i = 0; i + k < n; i++)', rewritten: 'for (int i = 0; i < n - k; i++)' },
  // An unsigned i below c wraps in the original test; `i < n + c` would not.
  { header: 'for (unsigned i = 0; i - 1 < n; i++)', rewritten: null },
  // The offset changes inside the loop: no fixed bound exists.
  { header: 'for (int i = 0; i + m < n; i++)', rewritten: null },
];

const source = (header: string) =>
  `long walk(int n, int k, const long *x)\n{\n    long s = 0;\n    int m = 1;\n    ${header} {\n        s += x[i];\n        m = m + 0;\n    }\n    return s;\n}\n`;

let scratch = '';
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'loop-test-'));
});
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe.each(COMPILERS)('%s', (family) => {
  it.each(CASES.map((entry, index) => ({ ...entry, index })))('$header', async ({ header, rewritten, index }) => {
    const dir = join(scratch, `${family}-${index}`);
    await mkdir(join(dir, 'project', 'src'), { recursive: true });
    await writeFile(join(dir, 'project', 'src', 'walk.c'), source(header));
    const spec = {
      class: 'non-canonical-loop',
      file: 'src/walk.c',
      expect: 'repaired' as const,
      directives: [{ start_line: 5, pragma: '#pragma omp parallel for', shared: ['x'], reduction: ['+:s'] }],
    };
    const prepared = await prepareFixture(
      { name: 'walk', dir, spec },
      join(scratch, `${family}-${index}-work`),
      family,
    );
    expect(prepared.task.build.ok).toBe(false);
    const result = await builtinRepair(prepared.task);
    if (rewritten === null) {
      expect(result.kind === 'declined' && result.reason).toContain('not in OpenMP canonical form');
      return;
    }
    expect(result.kind === 'answer' && result.text).toContain(`+    ${rewritten} {`);
  });
});
