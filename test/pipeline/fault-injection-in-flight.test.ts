// Kill points reached while several agent repairs are in flight (--agent-jobs 3), each followed by
// --resume: the resumed run finishes the job with the uninterrupted run's patch sets and asks the
// agent again only what was in flight (docs/fault-injection.md).
import { resultsOf } from '../../src/formats/results-document.js';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { instantiateFixture } from '../../scripts/instantiate-fixture.mjs';
import { correctReplies, DEMO_FAILING, demoAnswers } from '../helpers/demo-answers.js';
import { scriptedCalls, writeScriptedDescriptor } from '../helpers/scripted-agent.js';
import { CLI, cli, normalizedSet } from './fault-runs.js';

/**
 * Kill points reached while several repairs are in flight (--agent-jobs 3, every call taking a
 * second), each followed by --resume. The resumed run finishes the job: every patch set ends as
 * the uninterrupted run left it, and the agent is asked again only what was in flight at the kill.
 */
const IN_FLIGHT_POINTS = [
  'pipeline.before-repair@3',
  'pipeline.after-repair@2',
  'pipeline.before-write-back@2',
  'verify.after-builds@4',
  // Discovery's builds (the probe, a screen for each of the eight suggestions with a patch, the
  // confirmation builds), then verification builds.
  'build.after-patch@10',
  'build.after-compile@11',
  // Killed during discovery's screens (the probe, then one per suggestion): the verdicts already
  // decided — the failing screens of 2, 3 and 4 — are reused; a screen that passed is not a verdict
  // and runs again.
  'build.after-compile@6',
  'write-back.after-journal-prepared@2',
  'write-back.after-rename@3',
  'write-back.after-written@1',
];

describe.concurrent('a run killed while several repairs are in flight, then --resume', () => {
  let answers: Record<string, string>;
  let uninterrupted: Record<string, Record<string, string>>;

  beforeAll(async () => {
    answers = await demoAnswers(CLI);
    const { root, dotDir } = instantiateFixture('demo');
    try {
      await agentRun(dotDir, path.join(path.dirname(root), 'agent'), correctReplies(answers, root), []);
      uninterrupted = Object.fromEntries(
        DEMO_FAILING.map((id) => [id, normalizedSet(path.join(dotDir, 'patch_generator', id), root)]),
      );
    } finally {
      rmSync(path.dirname(root), { recursive: true, force: true });
    }
  });

  async function agentRun(
    dotDir: string,
    agentDir: string,
    replies: Parameters<typeof writeScriptedDescriptor>[0]['replies'],
    extra: string[],
    env: Record<string, string> = {},
  ) {
    const { descriptorFile, stateFile } = await writeScriptedDescriptor({ dir: agentDir, replies, delayMs: 1000 });
    const outcome = await cli(
      dotDir,
      ['--backend', descriptorFile, '--no-builtin', '--agent-jobs', '3', '-j', '2', ...extra],
      env,
    );
    return { outcome, calls: await scriptedCalls(stateFile) };
  }

  it.each(IN_FLIGHT_POINTS)(
    '%s: the resumed run asks only what was in flight and ends with the same patch sets',
    async (point) => {
      const { root, dotDir } = instantiateFixture('demo');
      const agentDir = path.join(path.dirname(root), 'agent');
      try {
        const generated = Object.fromEntries(
          DEMO_FAILING.map((id) => [id, normalizedSet(path.join(dotDir, 'patch_generator', id), root)]),
        );
        const replies = correctReplies(answers, root);
        const killed = await agentRun(dotDir, agentDir, replies, [], { PATCH_REPAIR_FAULT: point });
        expect(killed.outcome, `${point} was never reached`).toMatchObject({ kind: 'signaled', signal: 'SIGKILL' });
        // Calls whose answers never arrived: started, and no call-finished before the kill.
        const stream = readFileSync(path.join(dotDir, 'patch_repair', 'progress.jsonl'), 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as { type: string; tier?: string });
        const inFlight =
          stream.filter((e) => e.type === 'call-started' && e.tier === 'agent').length -
          stream.filter((e) => e.type === 'call-finished' && e.tier === 'agent').length;

        // The resumed run carries the killed run's discovery events over with their own times.
        const resumedFrom = new Date().toISOString();
        const resumed = await agentRun(dotDir, agentDir, replies, ['--resume']);
        expect(
          resumed.outcome,
          resumed.outcome.kind === 'exited' ? resumed.outcome.stdout + resumed.outcome.stderr : '',
        ).toMatchObject({ kind: 'exited', exitCode: 0 });
        if (resumed.outcome.kind === 'exited') expect(resumed.outcome.stderr).toMatch(/resuming run \S+:/);
        if (point === 'build.after-compile@6') {
          const rebuilt = readFileSync(path.join(dotDir, 'patch_repair', 'progress.jsonl'), 'utf8')
            .trim()
            .split('\n')
            .map((line) => JSON.parse(line) as { t: string; type: string; purpose?: string })
            .filter(
              (event) => event.type === 'build-started' && event.purpose === 'discovery' && event.t >= resumedFrom,
            );
          expect(rebuilt.length, 'discovery builds the killed run had finished are built again').toBeLessThan(8);
        }
        // The scripted agent's log holds the calls of both runs.
        expect(resumed.calls.length).toBeGreaterThanOrEqual(DEMO_FAILING.length);
        expect(resumed.calls.length).toBeLessThanOrEqual(DEMO_FAILING.length + inFlight);
        for (const id of DEMO_FAILING)
          expect(normalizedSet(path.join(dotDir, 'patch_generator', id), root), `suggestion ${id}`).toEqual(
            uninterrupted[id],
          );
        for (const id of DEMO_FAILING)
          expect(normalizedSet(path.join(dotDir, 'patch_repair', 'backups', id), root), `backup of ${id}`).toEqual(
            generated[id],
          );

        const results = resultsOf(JSON.parse(readFileSync(path.join(dotDir, 'patch_repair', 'results.json'), 'utf8')));
        expect(results.suggestions.map((s: { id: string }) => s.id)).toEqual([
          '0',
          '1',
          '2',
          '3',
          '4',
          '5',
          '6',
          '7',
          '9',
        ]);
        expect(results.run.resumed_from).toMatch(/\S/);
        // Nothing left to resume: a further --resume says so and starts afresh. It decides that from
        // the finished run alone, before any build, so one suggestion that builds as generated will do.
        const again = await cli(dotDir, ['--dry-run', '--resume', '--backend', 'builtin', '-s', '0']);
        expect(again.kind === 'exited' && again.stderr).toMatch(/--resume: run \S+ finished; starting afresh/);
      } finally {
        rmSync(path.dirname(root), { recursive: true, force: true });
      }
    },
  );
});
