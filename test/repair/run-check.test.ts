// Check 7 with real programs, real builds and real runs of execute.sh: a repair that builds but
// computes something else is rejected with a reason the model can act on; noise is not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureRunReference, type RunReferenceResult } from '../../src/repair/run-reference.js';
import { verify } from '../../src/repair/verify.js';
import type { RunCheckSettings } from '../../src/repair/checks/runs.js';
import { processesIn } from '../helpers/cli.js';
import { testOptions } from './project.js';
import {
  answerWith,
  createRunProject,
  RACE_C,
  RACE_LOOP_LINE,
  SECTION_C,
  SECTION_LOOP_LINE,
  type RunProject,
} from './run-project.js';

const BROKEN = '    #pragma omp parallel for shared(a,tmp_var7) private(t)';
const RACY = '    #pragma omp parallel for shared(a,t)';
const RIGHT = '    #pragma omp parallel for shared(a) private(t)';

function settingsOf(result: RunReferenceResult): RunCheckSettings {
  if (!result.ok) throw new Error(`the reference was refused: ${result.refusal}`);
  return result.settings;
}

async function reference(project: RunProject, o: { runTimeoutS?: number } = {}): Promise<RunReferenceResult> {
  return measureRunReference({
    pool: project.pool,
    config: project.dp.config,
    options: testOptions({ runThreads: 2, runRepeats: 3, ...o }),
  });
}

async function check(project: RunProject, settings: RunCheckSettings, answer: string) {
  return verify(answer, project.task, {
    dp: project.dp,
    options: { strict: false },
    pool: project.pool,
    scratchDir: project.scratch,
    runCheck: settings,
  });
}

describe.each(['gcc', 'clang'] as const)('a racy repair built with %s', (compiler) => {
  let project: RunProject;
  let settings: RunCheckSettings;
  beforeAll(async () => {
    project = await createRunProject({
      mainC: RACE_C,
      loopLine: RACE_LOOP_LINE,
      generated: BROKEN,
      compiler,
      layout: compiler === 'clang' ? 'shared' : 'per-configuration',
    });
    settings = settingsOf(await reference(project));
  });
  afterAll(() => project?.dispose());

  it('is rejected at check 7, naming the run and the line that differ', async () => {
    const verdict = await check(project, settings, answerWith(project, RACE_LOOP_LINE, RACY));
    expect(verdict).toMatchObject({ accepted: false, rejectedBy: 'runs' });
    if (verdict.accepted) return;
    expect(verdict.reason).toMatch(
      /^The project builds with the corrected patch set, but the program does not run like the sequential build/,
    );
    expect(verdict.reason).toMatch(
      /at 2 threads, run 1 of 3: line 2: `sum 90000\.000000` expected, `sum \d+\.\d+` got\nAt 1 thread the output matches\./,
    );
  });

  it('accepts the right clause: the runs are the same', async () => {
    const verdict = await check(project, settings, answerWith(project, RACE_LOOP_LINE, RIGHT));
    expect(verdict).toMatchObject({
      accepted: true,
      runCheck: { threads: 2, repeats: 3, verdict: 'same', first_difference: null },
    });
  });
});

it('rejects an array-section reduction over an array the loop also reads, already at 1 thread', async () => {
  const project = await createRunProject({
    mainC: SECTION_C,
    loopLine: SECTION_LOOP_LINE,
    generated: '    #pragma omp parallel for shared(x,y,tmp_var3)',
  });
  try {
    const settings = settingsOf(await reference(project));
    const verdict = await check(
      project,
      settings,
      answerWith(project, SECTION_LOOP_LINE, '    #pragma omp parallel for shared(x) reduction(+:y[0:N])'),
    );
    expect(verdict).toMatchObject({ accepted: false, rejectedBy: 'runs' });
    if (!verdict.accepted)
      expect(verdict.reason).toMatch(/at 1 thread: line 1: `checksum [-+.e0-9]+` expected, `checksum [-+.e0-9]+` got/);
  } finally {
    await project.dispose();
  }
});

it('does not reject a program for printing its run time, the date and its process id', async () => {
  const execute =
    '#!/bin/sh\ndate\necho "pid $$"\nstart=$(date +%s%N)\n"$DP_PROJECT_ROOT_DIR/demo"\necho "took $(( $(date +%s%N) - start )) ns"\n';
  const project = await createRunProject({ mainC: RACE_C, loopLine: RACE_LOOP_LINE, generated: BROKEN, execute });
  try {
    const result = await reference(project);
    expect(result).toMatchObject({ ok: true, record: { noise_lines: 3 } });
    const verdict = await check(project, settingsOf(result), answerWith(project, RACE_LOOP_LINE, RIGHT));
    expect(verdict).toMatchObject({ accepted: true, runCheck: { verdict: 'same' } });
  } finally {
    await project.dispose();
  }
});

it('judges an execute.sh that checks its own result by its exit code', async () => {
  const execute =
    '#!/bin/sh\nout=$("$DP_PROJECT_ROOT_DIR/demo")\ncase "$out" in *"sum 90000.000000"*) exit 0;; esac\necho "wrong answer: $out" >&2\nexit 1\n';
  const project = await createRunProject({ mainC: RACE_C, loopLine: RACE_LOOP_LINE, generated: BROKEN, execute });
  try {
    const settings = settingsOf(await reference(project));
    const verdict = await check(project, settings, answerWith(project, RACE_LOOP_LINE, RACY));
    expect(verdict).toMatchObject({ accepted: false, rejectedBy: 'runs' });
    if (!verdict.accepted)
      expect(verdict.reason).toMatch(
        /at 2 threads, run 1 of 3: exits with code 1, the sequential build with 0; the last 2 lines of its output:\nwrong answer: iterations 300\nsum /,
      );
  } finally {
    await project.dispose();
  }
});

it('stops a run that hangs at the time limit, with every process it started', async () => {
  const execute = '#!/bin/sh\n"$DP_PROJECT_ROOT_DIR/demo"\nif [ "$OMP_NUM_THREADS" != 1 ]; then sleep 600 & wait; fi\n';
  const project = await createRunProject({ mainC: RACE_C, loopLine: RACE_LOOP_LINE, generated: BROKEN, execute });
  try {
    const settings = settingsOf(await reference(project, { runTimeoutS: 2 }));
    const started = Date.now();
    const verdict = await check(project, settings, answerWith(project, RACE_LOOP_LINE, RIGHT));
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(verdict).toMatchObject({ accepted: false, rejectedBy: 'runs' });
    if (!verdict.accepted)
      expect(verdict.reason).toContain('at 2 threads, run 1 of 3: runs over the --run-timeout of 2 s and was stopped');
    expect(verdict.alternatives[0]!.checks.at(-1)).toMatchObject({ check: 'runs', passed: false });
    expect(processesIn(project.scratch)).toEqual([]);
  } finally {
    await project.dispose();
  }
});

it('runs the sequential build (seq_settings.json) as the reference when par_settings.json is not derived from it', async () => {
  const mainC = RACE_C.replace(
    '    printf("iterations %d\\n", N);',
    '#ifdef SEQUENTIAL_BUILD\n    puts("built with seq_settings.json");\n#else\n    puts("built with par_settings.json");\n#endif\n    printf("iterations %d\\n", N);',
  );
  const project = await createRunProject({
    mainC,
    loopLine: RACE_LOOP_LINE,
    generated: BROKEN,
    seqCflags: '-O1 -DSEQUENTIAL_BUILD',
    parSettings: { CC: 'gcc', CXX: 'g++', CFLAGS: '-O1 -fopenmp', CXXFLAGS: '-fopenmp' },
  });
  try {
    const settings = settingsOf(await reference(project));
    expect(settings.reference.floor.lines[0]).toBe('built with seq_settings.json');
    const verdict = await check(project, settings, answerWith(project, RACE_LOOP_LINE, RIGHT));
    expect(verdict).toMatchObject({ accepted: false, rejectedBy: 'runs' });
    if (!verdict.accepted)
      expect(verdict.reason).toContain(
        'at 1 thread: line 1: `built with seq_settings.json` expected, `built with par_settings.json` got',
      );
  } finally {
    await project.dispose();
  }
});

describe('a reference that cannot be compared with', () => {
  it.each([
    [
      'fails',
      '#!/bin/sh\necho "Please fill in this script"\nexit 1\n',
      /exits with code 1 from execute\.sh; its last line: Please fill in this script; fix execute\.sh/,
    ],
    [
      'prints only noise',
      '#!/bin/sh\ndate +%s%N\n',
      /two runs of the project without any suggestion print different output on every one of their 1 lines/,
    ],
  ])('is refused when it %s', async (_, execute, message) => {
    const project = await createRunProject({ mainC: RACE_C, loopLine: RACE_LOOP_LINE, generated: BROKEN, execute });
    try {
      const result = await reference(project);
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.refusal).toMatch(new RegExp(`^--check-run: ${project.dot}/project/configs/tiny/execute\\.sh: `));
        expect(result.refusal).toMatch(message);
        expect(result.refusal).not.toContain('\n');
      }
    } finally {
      await project.dispose();
    }
  });
});
