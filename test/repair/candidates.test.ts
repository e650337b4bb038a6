// Answers that offer alternatives ("Option A … Option B …") for the same file: each alternative
// is a candidate of its own, checked cheapest check first across all of them, and the first to
// pass all six is accepted, whichever order the answer gives them in. Real project, gcc, diff.
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunBudget } from '../../src/repair/budget.js';
import { loadPromptLadder } from '../../src/repair/ladder.js';
import { repairSuggestion } from '../../src/repair/loop.js';
import type { AttemptRecord } from '../../src/formats/attempt.js';
import type { VerifyBuilder } from '../../src/formats/outcome.js';
import type { RepairDeps } from '../../src/repair/deps.js';
import { verify, type VerifyDeps } from '../../src/repair/verify.js';
import { funnelOf } from '../../src/report/funnel.js';
import type { RunEvent } from '../../src/formats/events.js';
import type { PatchSet } from '../../src/formats/types.js';
import { createScriptedAgent } from '../helpers/scripted-agent.js';
import { answerDiff, createTestProject, GOOD_DIRECTIVE, testOptions, type TestProject } from './project.js';

let project: TestProject;
/** The patch sets sent to the build, in order: which candidates the verification built. */
let built: string[];
let deps: VerifyDeps;

const BUILD_FAILS = '    #pragma omp parallel for private(i) shared(a,b,c) reduction(+:sum) ';

/** The body of a fenced diff from answerDiff, to put several in one answer. */
function block(directive: string, o: { at?: number } = {}): string {
  return answerDiff(project.root, directive, o).split('```diff\n')[1]!.split('```')[0]!;
}

function options(...alternatives: string[]): string {
  return alternatives
    .map((diff, index) => `Option ${String.fromCharCode(65 + index)}:\n\n\`\`\`diff\n${diff}\`\`\`\n`)
    .join('\n');
}

/** A hunk whose context is nowhere in the file: it does not apply. */
function notApplying(): string {
  const context = ['int unrelated_one(void);', 'int unrelated_two(void);', 'int unrelated_three(void);'];
  return [
    `--- ${project.root}/src/main.c`,
    `+++ ${project.root}/src/main.c`,
    '@@ -8,3 +8,4 @@',
    ` ${context[0]}`,
    ` ${context[1]}`,
    `+${GOOD_DIRECTIVE}`,
    ` ${context[2]}`,
    '',
  ].join('\n');
}

beforeAll(async () => {
  project = await createTestProject();
  const recording: VerifyBuilder = {
    build: (id: string, patchSet: PatchSet, purpose: 'discovery' | 'verify') => {
      built.push(patchSet.get('1') ?? '');
      return project.pool.build(id, patchSet, purpose);
    },
    buildThen: (id, patchSet, purpose, then) => {
      built.push(patchSet.get('1') ?? '');
      return project.pool.buildThen(id, patchSet, purpose, then);
    },
  };
  deps = { dp: project.dp, options: { strict: false }, pool: recording, scratchDir: project.scratch };
});
afterAll(async () => {
  await project?.dispose();
});

describe('an answer with a wrong and a right alternative', () => {
  it('accepts the right one when the wrong one comes first, after building both', async () => {
    built = [];
    const verdict = await verify(options(block(BUILD_FAILS), block(GOOD_DIRECTIVE)), project.task, deps);
    if (!verdict.accepted) throw new Error(verdict.reason);
    expect(verdict.alternative).toBe(2);
    expect(verdict.canonical.get('1')).toContain(`+${GOOD_DIRECTIVE}`);
    expect(
      verdict.alternatives.map((c) => [c.alternative, c.blocks, c.accepted, c.accepted ? null : c.rejectedBy]),
    ).toEqual([
      [1, [1], false, 'builds'],
      [2, [2], true, null],
    ]);
    expect(built.map((patch) => patch.includes('shared(a,b,c)'))).toEqual([true, false]);
  });

  it('accepts the right one when it comes first, and never builds the wrong one', async () => {
    built = [];
    const verdict = await verify(options(block(GOOD_DIRECTIVE), block(BUILD_FAILS)), project.task, deps);
    if (!verdict.accepted) throw new Error(verdict.reason);
    expect(verdict.alternative).toBe(1);
    expect(built).toHaveLength(1);
    const [, second] = verdict.alternatives;
    expect(second).toMatchObject({
      accepted: false,
      rejectedBy: null,
      reason: 'not built: alternative 1 passed every check first',
    });
    expect(second!.checks.map((c) => c.check)).toEqual([
      'extraction',
      'dry-run-apply',
      'apply',
      'canonicalize',
      'directives-kept',
    ]);
  });

  it('runs the cheap checks on every candidate before building any: one that does not apply costs no build', async () => {
    built = [];
    const verdict = await verify(options(notApplying(), block(BUILD_FAILS), block(GOOD_DIRECTIVE)), project.task, deps);
    if (!verdict.accepted) throw new Error(verdict.reason);
    expect(verdict.alternative).toBe(3);
    expect(verdict.alternatives.map((c) => (c.accepted ? 'accepted' : c.rejectedBy))).toEqual([
      'dry-run-apply',
      'builds',
      'accepted',
    ]);
    expect(built).toHaveLength(2);
  });
});

/**
 * The answer's fix written into a context line: it declares `c` in the line above `main`, which
 * the answer shows as context, and adds a directive that shares `c`. Read as a diff, the file's
 * line stays and `c` is undeclared; the hunk-context reading writes the answer's line.
 */
function fixInContextLine(directive: string): string {
  const lines = [
    'double a[N], b[N], c[N];',
    'int main(void) {',
    '    int i;',
    '    double sum = 0.0;',
    '    for (i = 0; i < N; i++) {',
    '        a[i] = i * 0.5;',
    '        b[i] = i * 2.0;',
    '    }',
  ];
  return [
    `--- ${project.root}/src/main.c`,
    `+++ ${project.root}/src/main.c`,
    '@@ -3,9 +3,10 @@',
    ...lines.map((line) => ` ${line}`),
    `+${directive}`,
    '     for (i = 0; i < N; i++) {',
    '',
  ].join('\n');
}

describe('an answer whose fix is written into a context line', () => {
  it("builds the diff reading first and, when that fails, accepts the reading with the answer's context line, as a code edit outside the directive", async () => {
    built = [];
    const verdict = await verify(`\`\`\`diff\n${fixInContextLine(BUILD_FAILS)}\`\`\`\n`, project.task, deps);
    if (!verdict.accepted) throw new Error(verdict.reason);
    expect(
      verdict.alternatives.map((c) => [c.alternative, c.reading, c.blocks, c.accepted ? 'accepted' : c.rejectedBy]),
    ).toEqual([
      [1, 'diff', [1], 'builds'],
      [2, 'hunk-context', [1], 'accepted'],
    ]);
    expect(verdict.applyReport?.files[0]?.hunks[0]).toMatchObject({ applied: true, line: 3 });
    expect(verdict.alternatives[0]!.applyReport?.files[0]?.hunks[0]?.applied).toBe(true);
    expect(verdict.nonDirectiveLinesChanged).toBe(true);
    expect(verdict.canonical.get('1')).toContain('-double a[N], b[N];\n+double a[N], b[N], c[N];\n');
    expect(built.map((patch) => patch.includes('+double a[N], b[N], c[N];'))).toEqual([false, true]);
  });

  it('never builds the second reading when the diff reading builds', async () => {
    built = [];
    const verdict = await verify(`\`\`\`diff\n${fixInContextLine(GOOD_DIRECTIVE)}\`\`\`\n`, project.task, deps);
    if (!verdict.accepted) throw new Error(verdict.reason);
    expect(verdict).toMatchObject({ alternative: 1, reading: 'diff', nonDirectiveLinesChanged: false });
    expect(verdict.alternatives[1]).toMatchObject({
      reading: 'hunk-context',
      rejectedBy: null,
      reason: 'not built: alternative 1 passed every check first',
    });
    expect(built).toHaveLength(1);
  });

  it('refuses the second reading under --strict, which allows no edit outside the directives', async () => {
    built = [];
    const verdict = await verify(`\`\`\`diff\n${fixInContextLine(BUILD_FAILS)}\`\`\`\n`, project.task, {
      ...deps,
      options: { strict: true },
    });
    if (verdict.accepted) throw new Error('expected a rejection');
    expect(verdict.alternatives.map((c) => [c.reading, c.accepted ? 'accepted' : c.rejectedBy])).toEqual([
      ['diff', 'builds'],
      ['hunk-context', 'strict'],
    ]);
    expect(verdict.reason).toMatch(
      /^The answer holds one patch set, read 2 ways \(also with the context lines that differ from the file written as the answer has them\), and none passed\. The one that got furthest, alternative 1 of 2/,
    );
    expect(built).toHaveLength(1);
  });
});

describe('an answer whose alternatives all fail', () => {
  it('is rejected with the reason of the one that got furthest, saying there were several', async () => {
    built = [];
    const verdict = await verify(options(notApplying(), block(BUILD_FAILS)), project.task, deps);
    if (verdict.accepted) throw new Error('expected a rejection');
    expect(verdict.rejectedBy).toBe('builds');
    expect(verdict.alternative).toBe(2);
    expect(verdict.reason).toMatch(
      /^The answer offers 2 alternative patch sets and none passed\. The one that got furthest, alternative 2 of 2 \(the answer's block 2\), was rejected by the builds check:\nThe project does not build/,
    );
    expect(verdict.reason).toMatch(/[‘']c[’'] undeclared/);
  });
});

describe('blocks for one file that change separate lines', () => {
  it('are first read as one change written in pieces, as before alternatives were split', async () => {
    built = [];
    // The directive fix, and a second block that only adds a comment far below it.
    const comment = [
      `--- ${project.root}/src/main.c`,
      `+++ ${project.root}/src/main.c`,
      '@@ -14,2 +14,3 @@',
      '     printf("%f\\n", sum);',
      '+    /* checked */',
      '     return 0;',
      '',
    ].join('\n');
    const verdict = await verify(options(block(GOOD_DIRECTIVE), comment), project.task, deps);
    if (!verdict.accepted) throw new Error(verdict.reason);
    expect(verdict.alternative).toBe(1);
    expect(verdict.blocks).toEqual([1, 2]);
    expect(verdict.canonical.get('1')).toContain('+    /* checked */');
  });
});

describe('in the attempt loop', () => {
  it('counts one answered call, records every candidate in the transcript, tells the model about the furthest, and the funnel counts the answer once', async () => {
    const ladder = await loadPromptLadder();
    const scratch = await mkdtemp(path.join(project.scratch, 'candidates-'));
    const replies = [options(notApplying(), block(BUILD_FAILS)), options(block(BUILD_FAILS), block(GOOD_DIRECTIVE))];
    const agent = await createScriptedAgent({ scratchDir: scratch, replies, systemPrompt: ladder.system });
    const written: AttemptRecord[] = [];
    const runOptions = testOptions({ agent: { prompts: 1, retries: 1 } });
    project.events.length = 0;
    const repairDeps: RepairDeps = {
      dp: project.dp,
      options: runOptions,
      pool: project.pool,
      agent,
      emit: project.emit,
      attempts: { writeAnswer: async () => undefined, write: async (t) => void written.push(t) },
      signal: new AbortController().signal,
      budget: new RunBudget({ emit: project.emit }),
      scratchDir: scratch,
      ladder,
    };
    const outcome = await repairSuggestion(project.task, repairDeps);
    expect(outcome).toMatchObject({ status: 'repaired', calls: 2, acceptedAttempt: 2 });

    expect(
      written.map((t) =>
        t.verification?.alternatives.map((c) => [c.alternative, c.accepted, c.accepted ? null : c.rejectedBy]),
      ),
    ).toEqual([
      [
        [1, false, 'dry-run-apply'],
        [2, false, 'builds'],
      ],
      [
        [1, false, 'builds'],
        [2, true, null],
      ],
    ]);
    const followUp = (await agent.calls())[1]!.prompt;
    expect(followUp).toContain('The one that got furthest, alternative 2 of 2');
    expect(followUp).toMatch(/[‘']c[’'] undeclared/);

    const events = project.events.map((e, i) => ({ t: String(i), ...e }) as RunEvent);
    const [agentFunnel] = funnelOf(events, { strict: false, writes: false });
    expect(agentFunnel).toMatchObject({
      tier: 'agent',
      answered: 2,
      extracted: 2,
      applies: 2,
      canonical: 2,
      directives_kept: 2,
      builds: 1,
      written: null,
    });
  });
});
