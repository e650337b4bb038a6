// The answer forms beside plain unified diffs, through all six checks on a real project (GNU patch,
// diff -Naru, gcc -fopenmp): DiscoPoP's own ===BEGIN PATCH <file_id>=== contract, OpenAI's
// apply_patch format (V4A), and the slips real models make around a unified diff. Each answer is
// written as a model writes it, prose included.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Verification } from '../../src/formats/attempt.js';
import { verify, type VerifyDeps } from '../../src/repair/verify.js';
import { createTestProject, GOOD_DIRECTIVE, type TestProject } from './project.js';

let project: TestProject;
let deps: VerifyDeps;
let generatorBefore: Record<string, string>;

beforeAll(async () => {
  project = await createTestProject();
  deps = { dp: project.dp, options: { strict: false }, pool: project.pool, scratchDir: project.scratch };
  generatorBefore = await project.generatorSnapshot();
});
afterEach(async () => {
  expect(await project.generatorSnapshot()).toEqual(generatorBefore);
});
afterAll(async () => {
  await project?.dispose();
});

const GENERATED_DIRECTIVE = '    #pragma omp parallel for private(i) shared(a,b,tmp_var37) reduction(+:sum) ';
const WRONG_DIRECTIVE = '    #pragma omp parallel for private(i) shared(a,b,c) reduction(+:sum) ';
const ALL_SIX = ['extraction', 'dry-run-apply', 'apply', 'canonicalize', 'directives-kept', 'builds'];

/** The canonical patch of an accepted verdict: the generator's header form with the good directive. */
function expectRepaired(verdict: Verification): void {
  if (!verdict.accepted) throw new Error(`${verdict.rejectedBy}: ${verdict.reason}`);
  expect(verdict.checks.map((c) => [c.check, c.passed])).toEqual(ALL_SIX.map((check) => [check, true]));
  const canonical = verdict.canonical.get('1')!;
  expect(canonical.split('\n')[0]).toMatch(new RegExp(`^--- ${project.root}/src/main\\.c\\t`));
  expect(canonical).toContain(`\n+${GOOD_DIRECTIVE}\n`);
  expect(canonical).not.toContain('tmp_var37');
  expect(verdict.build.ok).toBe(true);
}

function rejected(verdict: Verification): { check: string; reason: string } {
  if (verdict.accepted) throw new Error('expected the answer to be rejected');
  return { check: verdict.rejectedBy, reason: verdict.reason };
}

/** The generated hunk with `directive` in place of the generated one, under `header`. */
function block(header: string[], directive: string): string[] {
  return [
    ...header,
    '@@ -8,6 +8,7 @@',
    '         a[i] = i * 0.5;',
    '         b[i] = i * 2.0;',
    '     }',
    `+${directive}`,
    '     for (i = 0; i < N; i++) {',
    '         sum += a[i] * b[i];',
    '     }',
  ];
}

describe("DiscoPoP's contract: ===BEGIN PATCH <file_id>=== blocks", () => {
  it('maps a block by the id in its marker: a header path that names no file of the set does not matter', async () => {
    const answer = [
      'The shared clause names `tmp_var37`, an LLVM temporary that does not exist in the source. Dropping it fixes the build:',
      '',
      '```',
      '===BEGIN PATCH 1===',
      ...block(['--- a/main_parallel.c', '+++ b/main_parallel.c'], GOOD_DIRECTIVE),
      '===END PATCH 1===',
      '```',
      '',
      'No other file needs changing.',
    ].join('\n');
    expectRepaired(await verify(answer, project.task, deps));
  });

  it('rejects a block for a file id outside the suggestion at extraction, saying which ids it has', async () => {
    const answer = [
      '===BEGIN PATCH 4===',
      ...block([`--- ${project.root}/src/main.c`, `+++ ${project.root}/src/main.c`], GOOD_DIRECTIVE),
      '===END PATCH 4===',
    ].join('\n');
    const { check, reason } = rejected(await verify(answer, project.task, deps));
    expect(check).toBe('extraction');
    expect(reason).toBe(
      'block 1 (===BEGIN PATCH 4===): file id 4 is not part of this suggestion; its file ids are 1 (src/main.c)',
    );
  });

  it('reads two blocks for one id as two alternatives and accepts the one that builds', async () => {
    const answer = [
      'Two ways to fix it. Option A keeps a shared `c`:',
      '',
      '===BEGIN PATCH 1===',
      ...block(['--- src/main.c', '+++ src/main.c'], WRONG_DIRECTIVE),
      '===END PATCH 1===',
      '',
      'Option B drops the temporary altogether:',
      '',
      '===BEGIN PATCH 1===',
      ...block(['--- src/main.c', '+++ src/main.c'], GOOD_DIRECTIVE),
      '===END PATCH 1===',
    ].join('\n');
    const verdict = await verify(answer, project.task, deps);
    expectRepaired(verdict);
    expect(verdict.alternatives.map((c) => [c.blocks, c.accepted ? 'accepted' : c.rejectedBy])).toEqual([
      [[1], 'builds'],
      [[2], 'accepted'],
    ]);
  });
});

describe("OpenAI's apply_patch format (V4A)", () => {
  it('accepts an update with an @@ anchor and no line numbers, written on top of the generated patch', async () => {
    const answer = [
      "The directive's shared clause lists tmp_var37, which is not declared anywhere. I removed it:",
      '',
      '*** Begin Patch',
      '*** Update File: src/main.c',
      '@@ int main(void) {',
      '         b[i] = i * 2.0;',
      '     }',
      `-${GENERATED_DIRECTIVE}`,
      `+${GOOD_DIRECTIVE}`,
      '     for (i = 0; i < N; i++) {',
      '         sum += a[i] * b[i];',
      '*** End Patch',
    ].join('\n');
    const verdict = await verify(answer, project.task, deps);
    expectRepaired(verdict);
    expect(verdict.accepted && verdict.basis).toBe('on-top');
  });

  it('rejects an answer that adds a file at extraction, with the reason', async () => {
    const answer = [
      '*** Begin Patch',
      '*** Add File: src/omp_config.h',
      '+#define SHARED_VARS a,b',
      '*** Update File: src/main.c',
      '@@',
      '     }',
      `-${GENERATED_DIRECTIVE}`,
      '+    #pragma omp parallel for private(i) shared(SHARED_VARS) reduction(+:sum) ',
      '     for (i = 0; i < N; i++) {',
      '*** End Patch',
    ].join('\n');
    const { check, reason } = rejected(await verify(answer, project.task, deps));
    expect(check).toBe('extraction');
    expect(reason).toMatch(
      /^The answer cannot be a repair: `\*\*\* Add File: src\/omp_config\.h`: a repair never adds a file/,
    );
  });
});

describe('slips of real models', () => {
  it('accepts a unified diff followed by a stray "*** End Patch"', async () => {
    const answer = [
      'Fixed patch:',
      '',
      ...block([`--- ${project.root}/src/main.c`, `+++ ${project.root}/src/main.c`], GOOD_DIRECTIVE),
      '*** End Patch',
      '',
      'This removes tmp_var37 from the shared clause.',
    ].join('\n');
    expectRepaired(await verify(answer, project.task, deps));
  });

  it('reads a doubled "--" prefix on a context line and "+-" on the added directive as they were meant', async () => {
    const answer = [
      '```diff',
      '--- a/src/main.c',
      '+++ b/src/main.c',
      '@@ -8,6 +8,7 @@',
      '         a[i] = i * 0.5;',
      '--        b[i] = i * 2.0;',
      '     }',
      `+-${GOOD_DIRECTIVE}`,
      '     for (i = 0; i < N; i++) {',
      '         sum += a[i] * b[i];',
      '     }',
      '```',
    ].join('\n');
    const verdict = await verify(answer, project.task, deps);
    expectRepaired(verdict);
    expect(verdict.accepted && verdict.nonDirectiveLinesChanged).toBe(false);
  });
});
