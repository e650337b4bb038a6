// Canonical patches reproduce DiscoPoP's generator byte for byte (timestamps aside), multi-hunk
// changes and a file without a final newline included, and leave no scratch files behind.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalPatch } from '../../src/patch/canonical.js';
import { runProcess } from '../../src/process.js';
import { GENERATED_21, MAIN_C, MAIN_C_PATCHED } from './fixtures.js';

const TIMESTAMP = /\t\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9} [+-]\d{4}$/gm;
const withoutTimestamps = (patch: string) => patch.replace(TIMESTAMP, '\t<time>');

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'canonical-test-'));
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

/** What DiscoPoP's generator does: temp file beside the source, `diff -Naru` from inside .discopop. */
async function generatorProcedure(project: string, original: string, patched: string): Promise<string> {
  const source = join(project, 'src', 'main.c');
  await mkdir(join(project, 'src'), { recursive: true });
  await mkdir(join(project, '.discopop'), { recursive: true });
  await writeFile(source, original);
  await writeFile(`${source}.discopop_patch_generator.temp`, patched);
  const outcome = await runProcess({
    command: 'diff',
    args: ['-Naru', source, `${source}.discopop_patch_generator.temp`],
    cwd: join(project, '.discopop'),
  });
  expect(outcome).toMatchObject({ kind: 'exited', exitCode: 1 });
  return outcome.kind === 'exited' ? outcome.stdout : '';
}

describe('canonicalPatch', () => {
  it('reproduces the real generator patch of formats.md §2.1 byte for byte, timestamps aside', async () => {
    const patch = await canonicalPatch({
      oldHeaderPath: '/home/dev/demo/src/main.c',
      newHeaderPath: '/home/dev/demo/src/main.c.discopop_patch_generator.temp',
      original: MAIN_C,
      patched: MAIN_C_PATCHED,
      scratchDir: scratch,
    });
    expect(withoutTimestamps(patch)).toBe(withoutTimestamps(GENERATED_21));
    expect(patch).toMatch(/^--- \/home\/dev\/demo\/src\/main\.c\t\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9} [+-]\d{4}\n/);
  });

  it('matches the generator procedure on a multi-hunk change, including a file without final newline', async () => {
    const project = join(scratch, 'project');
    const original = MAIN_C.slice(0, -1);
    const patched = `${MAIN_C_PATCHED.replace('    printf("%f\\n", sum);', '    printf("sum = %f\\n", sum);').replace('#define N 1000', '#include <omp.h>\n#define N 1000')}`;
    const expected = await generatorProcedure(project, original, patched);
    const source = join(project, 'src', 'main.c');
    const patch = await canonicalPatch({
      oldHeaderPath: source,
      newHeaderPath: `${source}.discopop_patch_generator.temp`,
      original,
      patched,
      scratchDir: scratch,
    });
    expect(withoutTimestamps(patch)).toBe(withoutTimestamps(expected));
    expect(patch).toContain('\\ No newline at end of file');
  });

  it('returns an empty string when nothing changed, and cleans up its scratch files', async () => {
    const dir = await mkdtemp(join(scratch, 'empty-'));
    expect(
      await canonicalPatch({
        oldHeaderPath: '/p/a.c',
        newHeaderPath: '/p/a.c.discopop_patch_generator.temp',
        original: MAIN_C,
        patched: MAIN_C,
        scratchDir: dir,
      }),
    ).toBe('');
    const { readdir } = await import('node:fs/promises');
    expect(await readdir(dir)).toEqual([]);
  });
});
