// The fixes the issue-40 rules avoid, built and run: each builds with the real compiler, and the
// output check (1 and 4 threads against the original program) catches it, so a rule that made it
// would be counted wrong rather than repaired (classes.test.ts runs the rules' own answers).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runProcess } from '../../src/process.js';
import {
  applyAndCompile,
  judgeRun,
  prepareFixture,
  programOutputs,
  runOutputs,
  type CompilerName,
  type Fixture,
  type FixtureSpec,
} from './harness.js';

const fixturesDir = join(import.meta.dirname, '..', '..', 'fixtures', 'classes');
const scratch = await mkdtemp(join(tmpdir(), 'builtin-wrong-'));
afterAll(() => rm(scratch, { recursive: true, force: true }));

interface WrongFix {
  fixture: string;
  family: CompilerName;
  why: string;
  /** The generated directive's text → the wrong one. */
  from: string;
  to: string;
}

const CASES: WrongFix[] = [
  ...(['gcc', 'clang'] as const).map((family) => ({
    fixture: 'invalid-reduction-21',
    family,
    from: 'reduction(-:G)',
    to: 'reduction(-:G[0:SIDE][0:SIDE])',
    why: 'a section reduction over the whole grid G privatizes the cells the t loop reads (G[r][t], G[t][c]), which then read zero',
  })),
  ...(['gcc', 'clang'] as const).map((family) => ({
    fixture: 'invalid-reduction-19',
    family,
    from: 'private(x) shared(v) reduction(+:m.sum,m.sumsq,m.count)',
    to: 'shared(v) private(m)',
    why: 'privatizing the struct instead of reducing its members loses every sum',
  })),
  ...(['gcc', 'clang'] as const).map((family) => ({
    fixture: 'invalid-reduction-23',
    family,
    from: 'private(pick) shared(walk) reduction(+:drift)',
    to: 'shared(walk) firstprivate(drift)',
    why: 'a firstprivate copy of the step2d drift instead of a member-wise reduction leaves the sum at zero',
  })),
  {
    fixture: 'invalid-reduction-16',
    family: 'clang',
    from: 'private(i) ',
    to: '',
    why: 'only dropping the for-init index leaves reduction(+:sums[0],…,sums[3]), which clang 14 builds and computes wrongly',
  },
];

it.concurrent.each(CASES.map((wrong) => [`${wrong.family} ${wrong.fixture}: ${wrong.why}`, wrong] as const))(
  '%s: builds, and the output check catches it',
  async (_title, wrong) => {
    const dir = join(scratch, wrong.family, wrong.fixture);
    const fixture: Fixture = {
      name: wrong.fixture,
      dir: join(fixturesDir, wrong.fixture),
      spec: JSON.parse(await readFile(join(fixturesDir, wrong.fixture, 'fixture.json'), 'utf8')) as FixtureSpec,
    };
    const prepared = await prepareFixture(fixture, join(scratch, 'prepared'), wrong.family);
    expect(prepared.task.build.ok).toBe(false);
    const generated = prepared.task.patched.get('1')!;
    expect(generated).toContain(wrong.from);
    const wrongPath = join(scratch, `${wrong.family}-${wrong.fixture}-wrong.${fixture.spec.file.split('.').pop()}`);
    await writeFile(wrongPath, generated.split(wrong.from).join(wrong.to));
    const diff = await runProcess({ command: 'diff', args: ['-Naru', prepared.sourcePath, wrongPath], cwd: scratch });
    const [, , ...hunks] = diff.kind === 'exited' ? diff.stdout.split('\n') : [];
    const header = prepared.task.generated.get('1')!.split('\n').slice(0, 2);
    const answer = `\`\`\`diff\n${[...header, ...hunks].join('\n')}\`\`\`\n`;

    const checked = await applyAndCompile(prepared, answer, dir);
    expect(checked.applied, checked.patchOutput).toBe(true);
    expect(checked.compiled, checked.compileOutput).toBe(true);
    const outputs = {
      original: await runOutputs(join(dir, 'original'), fixture, prepared.task.sources.get('1')!, wrong.family),
      repaired: await programOutputs(checked.program!, fixture),
    };
    expect(outputs.original?.[0]).toMatch(/\d/);
    expect(
      judgeRun({ prepared, result: { kind: 'answer', text: answer, rules: [] }, checked, outputs }, true).outcome,
    ).toBe('wrong');
  },
  120_000,
);
