// --resume through the built CLI on copies of the demo: what a stopped run settled is kept, its
// discovery builds are reused while nothing they depend on changed, a suggestion cut short goes on
// where it stood on the prompt ladder, and a changed project is never trusted.
// (Kills at every repair-stage point followed by --resume: fault-injection-records.test.ts.)
// Each case has copies of its own. Three at a time run side by side; the longest case runs alone
// between them, its uninterrupted run beside the interrupted one: more at once on two cores would
// only bring each case closer to its timeout.
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { runProcess } from '../../src/process.js';
import { RunStateSchema } from '../../src/formats/resume-state.js';
import { demoAnswers } from '../helpers/demo-answers.js';
import { readEvents, readResults } from '../helpers/cli.js';
import { useFixture } from '../helpers/fixture.js';
import { scriptedCalls, writeScriptedDescriptor } from '../helpers/scripted-agent.js';

const CLI = path.resolve('dist/cli.js');

async function cli(dotDir: string, args: string[], env: Record<string, string> = {}) {
  const outcome = await runProcess({
    command: process.execPath,
    args: [CLI, '--dot-dp-path', dotDir, ...args],
    cwd: dotDir,
    env,
    timeoutMs: 240_000,
  });
  if (outcome.kind !== 'exited' && !(outcome.kind === 'signaled' && env.PATCH_REPAIR_FAULT))
    throw new Error(`patch-repair ${args.join(' ')}: ${outcome.kind}`);
  return outcome;
}

const results = readResults;

const events = readEvents;

let answers: Record<string, string>;

beforeAll(async () => {
  answers = await demoAnswers(CLI);
});

it.concurrent(
  'keeps what a run stopped by --max-repairs finished, reuses its discovery builds and repairs the rest',
  async (test) => {
    const { dotDir } = useFixture('demo', test);
    const first = await cli(dotDir, ['--backend', 'builtin', '--max-repairs', '2', '--agent-jobs', '2']);
    expect(first.kind === 'exited' && first.exitCode).toBe(0);
    const stopped = results(dotDir);
    const kept = stopped.suggestions.filter((s) => s.status === 'repaired');
    expect(kept).toHaveLength(2);
    expect(
      RunStateSchema.parse(JSON.parse(readFileSync(path.join(dotDir, 'patch_repair', 'run-state.json'), 'utf8')))
        .complete,
    ).toBe(false);

    const resumed = await cli(dotDir, ['--backend', 'builtin', '--resume']);
    expect(resumed.kind === 'exited' && resumed.exitCode).toBe(0);
    expect(resumed.kind === 'exited' && resumed.stderr).toMatch(
      new RegExp(
        `resuming run ${stopped.run.id}: 2 suggestion\\(s\\) kept as finished, 6 discovery build\\(s\\) reused`,
      ),
    );
    // What discovery really does is said, not "Building 0 suggestion(s)".
    expect(resumed.kind === 'exited' && resumed.stderr).toContain(
      '\nReusing 6 discovery build(s) of the resumed run; no suggestion to build again\n',
    );
    expect(resumed.kind === 'exited' && resumed.stderr).not.toContain('Building 0 suggestion(s)');
    const file = results(dotDir);
    expect(file.run.resumed_from).toBe(stopped.run.id);
    expect(file.run.counts).toMatchObject({ ok: 2, repaired: 6, skipped: 1 });
    // The kept ones are neither built nor repaired again, and keep their records and tries.
    for (const record of kept) {
      expect(file.suggestions.find((s) => s.id === record.id)).toEqual(record);
      expect(readdirSync(path.join(dotDir, 'patch_repair', 'attempts', record.id))).toEqual(['1']);
    }
    // The killed run's events of what is taken over are carried into this run's log with their own
    // (earlier) times; what this run itself did comes after its start.
    const stream = events(dotDir).filter((e) => e.t >= file.run.started);
    expect(stream.filter((e) => e.type === 'build-started' && e.purpose === 'discovery')).toHaveLength(0);
    expect(stream.filter((e) => e.type === 'repair-started').map((e) => (e as { id: string }).id)).toEqual(
      ['2', '3', '4', '5', '6', '9'].filter((id) => !kept.some((k) => k.id === id)),
    );
  },
);

it.concurrent(
  'goes on where a suggestion stood: the answer that arrived is checked, not asked for again, and the conversation is replayed',
  async (test) => {
    const { root, dotDir } = useFixture('demo', test);
    const correct = answers['3']!.replaceAll('<root>', root);
    const { descriptorFile, stateFile } = await writeScriptedDescriptor({
      dir: path.join(path.dirname(root), 'agent'),
      replies: ['I would remove acc from the private clause.', 'Still thinking: drop acc.', correct],
    });
    const args = ['--backend', descriptorFile, '--no-builtin', '-s', '3'];
    // Killed while the second answer is being checked.
    const killed = await cli(dotDir, args, { PATCH_REPAIR_FAULT: 'verify.after-extraction@2' });
    expect(killed).toMatchObject({ kind: 'signaled', signal: 'SIGKILL' });
    expect(await scriptedCalls(stateFile)).toHaveLength(2);

    const resumed = await cli(dotDir, [...args, '--resume']);
    expect(resumed.kind === 'exited' && resumed.exitCode).toBe(0);
    const calls = await scriptedCalls(stateFile);
    // An uninterrupted run makes three calls; so do both runs together.
    expect(calls).toHaveLength(3);
    // The third call continues the conversation: both earlier turns are replayed to the agent.
    expect(calls[2]!.resumed).toBeNull();
    expect(calls[2]!.prompt).toContain('Still thinking: drop acc.');
    expect(calls[2]!.prompt).toContain('"extraction" check');
    const record = results(dotDir).suggestions.find((s) => s.id === '3')!;
    expect(record).toMatchObject({ status: 'repaired', attempts: 3, accepted_attempt: 3 });
    const verdict = JSON.parse(
      readFileSync(path.join(dotDir, 'patch_repair', 'attempts', '3', '2', 'verdict.json'), 'utf8'),
    );
    expect(verdict).toMatchObject({ outcome: 'rejected', rejected_by: 'extraction', turn: 1 });
  },
);

it.concurrent(
  'says in one line which file of the project changed, trusts nothing of the old run and runs afresh',
  async (test) => {
    const { root, dotDir } = useFixture('demo', test);
    const first = await cli(dotDir, ['--backend', 'builtin', '--max-repairs', '1']);
    expect(first.kind === 'exited' && first.exitCode).toBe(0);
    appendFileSync(path.join(root, 'src', 'dot.c'), '\n/* edited after the run */\n');

    const resumed = await cli(dotDir, ['--backend', 'builtin', '--resume']);
    expect(resumed.kind === 'exited' && resumed.exitCode).toBe(0);
    const notes = (resumed.kind === 'exited' ? resumed.stderr : '')
      .split('\n')
      .filter((line) => line.includes('--resume'));
    expect(notes).toEqual([
      expect.stringMatching(
        /^note: --resume: the project changed since run \S+ \(src\/dot\.c changed\), so nothing of it is trusted; starting afresh$/,
      ),
    ]);
    expect(results(dotDir).run.resumed_from).toBeNull();
    // Everything was built again.
    expect(events(dotDir).filter((e) => e.type === 'build-started' && e.purpose === 'discovery')).toHaveLength(8);
  },
);

it('killed after its third repair with its output logged into the project root, resumes into the uninterrupted record', async () => {
  // As users run long jobs: `patch-repair … > run.log 2>&1` from the project root, then --resume
  // into another log there, with an editor's swap file left beside a source.
  const logged = (root: string, dotDir: string, log: string, args: string[], env: Record<string, string> = {}) =>
    runProcess({
      command: 'sh',
      args: [
        '-c',
        `"$0" "$@" > ${log} 2>&1`,
        process.execPath,
        CLI,
        '--dot-dp-path',
        dotDir,
        '--backend',
        'builtin',
        ...args,
      ],
      cwd: root,
      env,
      timeoutMs: 240_000,
    });
  const whole = useFixture('demo');
  const cut = useFixture('demo');
  const uninterrupted = logged(whole.root, whole.dotDir, 'run.log', []);
  const interrupted = (async () => {
    const killed = await logged(cut.root, cut.dotDir, 'run.log', [], {
      PATCH_REPAIR_FAULT: 'pipeline.after-write-back@3',
    });
    expect(killed.kind === 'exited' ? killed.exitCode : killed.kind === 'signaled' && killed.signal).toBeOneOf([
      137,
      'SIGKILL',
    ]);
    writeFileSync(path.join(cut.root, 'src', '.dot.c.swp'), 'vim swap');
    expect(await logged(cut.root, cut.dotDir, 'resume.log', ['--resume'])).toMatchObject({
      kind: 'exited',
      exitCode: 0,
    });
  })();
  // Both end before the test does and its copies go, even when one of them fails.
  await Promise.allSettled([uninterrupted, interrupted]);
  expect(await uninterrupted).toMatchObject({ kind: 'exited', exitCode: 0 });
  await interrupted;
  expect(readFileSync(path.join(cut.root, 'resume.log'), 'utf8')).toMatch(
    /resuming run \S+: 3 suggestion\(s\) kept as finished/,
  );

  const record = (dotDir: string, root: string) => {
    const { run, suggestions } = results(dotDir);
    const {
      id: _id,
      started: _started,
      finished: _finished,
      resumed_from: _from,
      options: _options,
      openmp_probe: _probe,
      phases: _phases,
      ...rest
    } = run;
    // duration_s and the phase times are wall time: they differ between any two runs.
    const timeless = suggestions.map(({ duration_s: _d, ...kept }) => kept);
    return JSON.parse(JSON.stringify({ run: rest, suggestions: timeless }).replaceAll(root, '<root>'));
  };
  expect(record(cut.dotDir, cut.root)).toEqual(record(whole.dotDir, whole.root));
  expect(results(cut.dotDir).run.counts).toMatchObject({ repaired: 6 });
});

it.concurrent(
  'stopped by SIGINT after its last suggestion was written, is resumed rather than taken for finished',
  async (test) => {
    const { dotDir } = useFixture('demo', test);
    const stopped = await cli(dotDir, ['--backend', 'builtin', '-s', '2'], {
      PATCH_REPAIR_FAULT: 'pipeline.after-write-back:SIGINT',
    });
    expect(stopped.kind === 'exited' && stopped.exitCode).toBe(130);
    expect(results(dotDir).suggestions).toMatchObject([{ id: '2', status: 'repaired' }]);
    const state = RunStateSchema.parse(
      JSON.parse(readFileSync(path.join(dotDir, 'patch_repair', 'run-state.json'), 'utf8')),
    );
    expect(state.complete).toBe(false);

    const resumed = await cli(dotDir, ['--backend', 'builtin', '-s', '2', '--resume']);
    expect(resumed.kind === 'exited' && resumed.exitCode).toBe(0);
    expect(resumed.kind === 'exited' && resumed.stderr).toMatch(/resuming run \S+: 1 suggestion\(s\) kept as finished/);
    expect(results(dotDir).run.resumed_from).toBe(state.run_id);
  },
);

it.concurrent('with nothing to resume says so and runs as usual', async (test) => {
  const { dotDir } = useFixture('demo', test);
  const run = await cli(dotDir, ['--backend', 'builtin', '--resume', '-s', '2']);
  expect(run.kind === 'exited' && run.exitCode).toBe(0);
  expect(run.kind === 'exited' && run.stderr).toContain('note: --resume: no earlier run to resume; starting afresh');
  expect(results(dotDir).suggestions[0]).toMatchObject({ id: '2', status: 'repaired' });
});

it.concurrent(
  'killed after the first answered call and resumed, records the tokens and cost of the uninterrupted run',
  async (test) => {
    // Without sessions every follow-up replays the conversation, in both runs alike: the same
    // prompts, so the same tokens as the agent reports them (prompt and reply lengths, $0.001 a call).
    const scripted = async (root: string) => {
      const replies = ['I would remove acc from the private clause.', answers['3']!.replaceAll('<root>', root)];
      return writeScriptedDescriptor({ dir: path.join(path.dirname(root), 'agent'), replies, sessions: false });
    };
    const args = (descriptorFile: string) => ['--backend', descriptorFile, '--no-builtin', '-s', '3'];
    const whole = useFixture('demo', test);
    const wholeAgent = await scripted(whole.root);
    expect(await cli(whole.dotDir, args(wholeAgent.descriptorFile))).toMatchObject({ kind: 'exited', exitCode: 0 });

    const cut = useFixture('demo', test);
    const cutAgent = await scripted(cut.root);
    const killed = await cli(cut.dotDir, args(cutAgent.descriptorFile), {
      PATCH_REPAIR_FAULT: 'verify.after-extraction@1',
    });
    expect(killed).toMatchObject({ kind: 'signaled', signal: 'SIGKILL' });
    expect(await scriptedCalls(cutAgent.stateFile)).toHaveLength(1);
    expect(await cli(cut.dotDir, [...args(cutAgent.descriptorFile), '--resume'])).toMatchObject({
      kind: 'exited',
      exitCode: 0,
    });
    expect(await scriptedCalls(cutAgent.stateFile)).toHaveLength(2);

    const usage = (dotDir: string) => {
      const { run, suggestions } = results(dotDir);
      return {
        run: {
          input_tokens: run.input_tokens,
          output_tokens: run.output_tokens,
          cost_usd: run.cost_usd,
          counts: run.counts,
          funnel: run.funnel,
        },
        suggestions: suggestions.map(
          ({
            id,
            status,
            attempts,
            unanswered,
            accepted_attempt,
            input_tokens,
            output_tokens,
            cost_usd,
            backend,
            changed_files,
          }) => ({
            id,
            status,
            attempts,
            unanswered,
            accepted_attempt,
            input_tokens,
            output_tokens,
            cost_usd,
            backend,
            changed_files,
          }),
        ),
      };
    };
    const expected = usage(whole.dotDir);
    expect(expected.suggestions).toEqual([
      expect.objectContaining({ status: 'repaired', attempts: 2, accepted_attempt: 2, cost_usd: 0.002 }),
    ]);
    expect(expected.run.input_tokens).toBeGreaterThan(0);
    expect(usage(cut.dotDir)).toEqual(expected);
  },
);
