// DiscoPoP's task region with its closing brace before the last task's statement, on BOTS's
// sequential fib (fixtures/real/bots): the built-in repair moves the brace and keeps every
// directive in place (check 5), and --strict refuses it, because the brace is not a directive line.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
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
  prepareFixture,
  type Fixture,
  type FixtureSpec,
  type ProgramBuild,
} from './harness.js';

const botsDir = join(import.meta.dirname, '..', '..', 'fixtures', 'real', 'bots');
const programs = (
  JSON.parse(await readFile(join(botsDir, 'code.json'), 'utf8')) as { programs: Record<string, ProgramBuild> }
).programs;
const spec = JSON.parse(await readFile(join(botsDir, 'suggestions', 'fib-task-region.json'), 'utf8')) as FixtureSpec & {
  program: string;
};
const scratch = await mkdtemp(join(tmpdir(), 'builtin-task-region-'));
const fixture: Fixture = {
  name: 'bots/fib-task-region',
  dir: botsDir,
  spec,
  project: { projectDir: join(botsDir, 'project'), build: programs[spec.program]!, units: join(scratch, 'units') },
};
afterAll(() => rm(scratch, { recursive: true, force: true }));

describe.each(COMPILERS)('%s', (family) => {
  it('classes the error task-region-brace, moves the brace below the last task, and --strict refuses the repair', async () => {
    const prepared = await prepareFixture(fixture, scratch, family);
    const { build } = prepared.task;
    expect(build.ok).toBe(false);
    expect(build.diagnostics.filter(isBuildFailure).map((d) => d.errorClass)).toEqual(['task-region-brace']);
    const patched = prepared.task.patched.get('1')!.split('\n');
    expect(patched.slice(31, 38).map((line) => line.trim())).toEqual([
      '#pragma omp parallel',
      '#pragma omp single',
      '{',
      '#pragma omp task',
      'x = fib_seq(n - 1);',
      '#pragma omp task',
      '}',
    ]);

    const result = await builtinRepair(prepared.task);
    expect(result).toMatchObject({ kind: 'answer', rules: ['move-task-region-brace'] });
    const checked = await applyAndCompile(prepared, result.kind === 'answer' ? result.text : '', scratch);
    expect(checked.compiled, checked.compileOutput).toBe(true);
    const repaired = checked.repaired.split('\n');
    expect(repaired.slice(31, 40).map((line) => line.trim())).toEqual([
      '#pragma omp parallel',
      '#pragma omp single',
      '{',
      '#pragma omp task',
      'x = fib_seq(n - 1);',
      '#pragma omp task',
      'y = fib_seq(n - 2);',
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
        { kind: 'directive-moved', directive: '#pragma omp task', from: 'above a new line', to: 'above line 33' },
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
