// DiscoPoP's task region with its closing brace before the last task's statement, on the
// project's own recursive stair count (fixtures/shapes/tasks, the shape of BOTS's sequential fib)
// and, when BUILTIN_REAL_DIR names a copy of the real codes, on BOTS's fib itself: the built-in
// repair moves the brace and keeps every directive in place (check 5), and --strict refuses it,
// because the brace is not a directive line.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { builtinRepair } from '../../src/builtin/index.js';
import { isBuildFailure } from '../../src/formats/types.js';
import { checkDirectivesKept } from '../../src/patch/index.js';
import { strictCheck } from '../../src/repair/checks/strict.js';
import {
  applyAndCompile,
  COMPILERS,
  loadCodeFixtures,
  prepareFixture,
  REAL_DIR,
  realCodeSkipped,
  SHAPES_DIR,
  type CodeFixture,
} from './harness.js';

const scratch = await mkdtemp(join(tmpdir(), 'builtin-task-region-'));
afterAll(() => rm(scratch, { recursive: true, force: true }));
const byName = (fixtures: CodeFixture[], name: string) => fixtures.filter((fixture) => fixture.name === name);
const fixtures = [
  ...byName(
    await loadCodeFixtures(SHAPES_DIR, 'shapes/', scratch, { only: ['tasks'] }),
    'shapes/tasks/climb-task-region',
  ),
  ...(REAL_DIR
    ? byName(await loadCodeFixtures(REAL_DIR, '', scratch, { only: ['bots'] }), 'bots/fib-task-region')
    : []),
];

it('finds the own-shape fixture', () => expect(fixtures[0]?.name).toBe('shapes/tasks/climb-task-region'));
// Without the real codes, one skipped test says how to add them.
if (REAL_DIR === undefined) it.skip(realCodeSkipped('test/builtin/task-region.test.ts'), () => {});

describe.each(
  COMPILERS.flatMap((family) => fixtures.map((fixture) => [`${family} ${fixture.name}`, family, fixture] as const)),
)('%s', (_title, family, fixture) => {
  it('classes the error task-region-brace, moves the brace below the last task, and --strict refuses the repair', async () => {
    const prepared = await prepareFixture(fixture, scratch, family);
    const { build } = prepared.task;
    expect(build.ok).toBe(false);
    expect(build.diagnostics.filter(isBuildFailure).map((d) => d.errorClass)).toEqual(['task-region-brace']);
    // The region stands before the first task's statement (its line in the original), the second
    // task and the inserted brace before the next statement.
    const first = fixture.spec.directives[0]!.start_line;
    const original = prepared.task.sources.get('1')!.split('\n');
    const [firstTask, secondTask] = [original[first - 1]!.trim(), original[first]!.trim()];
    const patched = prepared.task.patched.get('1')!.split('\n');
    expect(patched.slice(first - 1, first + 6).map((line) => line.trim())).toEqual([
      '#pragma omp parallel',
      '#pragma omp single',
      '{',
      '#pragma omp task',
      firstTask,
      '#pragma omp task',
      '}',
    ]);

    const result = await builtinRepair(prepared.task);
    expect(result).toMatchObject({ kind: 'answer', rules: ['move-task-region-brace'] });
    const checked = await applyAndCompile(prepared, result.kind === 'answer' ? result.text : '', scratch);
    expect(checked.compiled, checked.compileOutput).toBe(true);
    const repaired = checked.repaired.split('\n');
    expect(repaired.slice(first - 1, first + 8).map((line) => line.trim())).toEqual([
      '#pragma omp parallel',
      '#pragma omp single',
      '{',
      '#pragma omp task',
      firstTask,
      '#pragma omp task',
      secondTask,
      '}',
      '',
    ]);

    const kept = checkDirectivesKept({
      original: prepared.task.sources.get('1')!,
      generated: prepared.task.patched.get('1')!,
      candidate: checked.repaired,
    });
    // The last task now stands above its statement instead of the inserted brace: the one change recorded.
    expect(kept).toMatchObject({
      ok: true,
      nonDirectiveLinesChanged: true,
      changes: [
        {
          kind: 'directive-moved',
          directive: '#pragma omp task',
          from: 'above a new line',
          to: `above line ${first + 1}`,
        },
      ],
    });
    const strict = strictCheck({
      clauseChanges: [],
      nonDirectiveLinesChanged: kept.ok && kept.nonDirectiveLinesChanged,
    });
    expect(strict.ok).toBe(false);
    expect(strict.ok ? '' : strict.reason).toMatch(
      /only directive lines may change, and the answer changes other lines/,
    );
  });
});
