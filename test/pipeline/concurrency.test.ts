// Several repairs in flight (--agent-jobs): every budget rule stays exact. The scripted agent is a
// real process per call (descriptor, runner, parser as for claude) that waits before it answers,
// so calls really overlap; real gcc verifies. The rules are checked on what the run recorded in
// progress.jsonl and results.json and on what the agent saw.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runProcess } from '../../src/process.js';
import type { RunEvent } from '../../src/formats/events.js';
import {
  correctReplies,
  DEMO_FAILING,
  demoAnswers,
  perSuggestion as perSuggestionReply,
} from '../helpers/demo-answers.js';
import { readEvents, readResults } from '../helpers/cli.js';
import { useFixture } from '../helpers/fixture.js';
import { isRunning } from '../helpers/process-state.js';
import { scriptedCalls, writeScriptedDescriptor, type ScriptedReply } from '../helpers/scripted-agent.js';

const CLI = path.resolve('dist/cli.js');
const FAILING = DEMO_FAILING;

async function cli(dotDir: string, args: string[]) {
  const outcome = await runProcess({
    command: process.execPath,
    args: [CLI, '--dot-dp-path', dotDir, ...args],
    cwd: dotDir,
    timeoutMs: 240_000,
  });
  if (outcome.kind !== 'exited') throw new Error(`patch-repair ${args.join(' ')}: ${outcome.kind}`);
  return outcome;
}

const results = readResults;

const events = readEvents;

/** The most agent calls that were running at the same moment, from the event stream. */
function mostCallsAtOnce(stream: RunEvent[]): number {
  let now = 0;
  let most = 0;
  for (const event of stream) {
    if (event.type === 'call-started' && event.tier === 'agent') most = Math.max(most, ++now);
    if (event.type === 'call-finished' && event.tier === 'agent') now -= 1;
  }
  return most;
}

let answers: Record<string, string>;

beforeAll(async () => {
  answers = await demoAnswers(CLI);
});

function perSuggestion(_root: string, reply: (id: string) => ScriptedReply): ScriptedReply[] {
  return perSuggestionReply(FAILING, reply);
}

function correct(root: string): ScriptedReply[] {
  return correctReplies(answers, root);
}

async function agentRun(dotDir: string, replies: ScriptedReply[], args: string[], delayMs = 1500) {
  const { descriptorFile, stateFile } = await writeScriptedDescriptor({
    dir: path.join(path.dirname(dotDir), '..', 'agent'),
    replies,
    delayMs,
  });
  const run = await cli(dotDir, ['--backend', descriptorFile, '--no-builtin', ...args]);
  return { run, calls: await scriptedCalls(stateFile) };
}

// The cases run side by side, each on its own copy with its own scripted agent.
describe.concurrent('several repairs in flight', () => {
  it('repairs every suggestion with calls overlapping, and records them in the considered order', async (test) => {
    const { root, dotDir } = useFixture('demo', test);
    const { run, calls } = await agentRun(dotDir, correct(root), ['--agent-jobs', '4', '-j', '2']);
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(calls).toHaveLength(FAILING.length);
    const stream = events(dotDir);
    expect(mostCallsAtOnce(stream)).toBe(4);

    const file = results(dotDir);
    expect(file.suggestions.map((s) => s.id)).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '9']);
    for (const id of FAILING) {
      expect(file.suggestions.find((s) => s.id === id)).toMatchObject({
        status: 'repaired',
        attempts: 1,
        accepted_attempt: 1,
      });
      // Each suggestion's tries are under its own folder, numbered from 1.
      expect(readdirSync(path.join(dotDir, 'patch_repair', 'attempts', id))).toEqual(['1']);
    }
    // Written one at a time: each write-back event follows the previous one, never a second in between.
    expect(
      stream
        .filter((e) => e.type === 'written')
        .map((e) => (e as { id: string }).id)
        .sort(),
    ).toEqual(FAILING);
    // The plain output keeps one whole line per event, each naming its suggestion.
    const attempts = run.stderr.split('\n').filter((line) => line.includes(', attempt '));
    expect(attempts).toHaveLength(FAILING.length);
    for (const line of attempts) expect(line).toMatch(/^ {2}suggestion \d+, attempt 1: agent answered$/);
  });

  it('--max-repairs: never more repairs than asked, no call spent beyond them, the rest skipped with the reason', async (test) => {
    const { root, dotDir } = useFixture('demo', test);
    const { run, calls } = await agentRun(dotDir, correct(root), ['--agent-jobs', '4', '--max-repairs', '2']);
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const file = results(dotDir);
    expect(file.run.counts.repaired).toBe(2);
    expect(calls).toHaveLength(2);
    const skipped = file.suggestions.filter((s) => s.status === 'skipped' && s.reason === '--max-repairs reached (2)');
    expect(skipped.map((s) => s.id)).toEqual(['4', '5', '6', '9']);
    expect(skipped.every((s) => s.attempts === 0)).toBe(true);
  });

  it('--max-repairs with answers that fail: a failed repair frees its place for the next suggestion', async (test) => {
    const { root, dotDir } = useFixture('demo', test);
    const replies = perSuggestion(root, (id) =>
      id === '2' || id === '3' ? 'I cannot see a problem.' : answers[id]!.replaceAll('<root>', root),
    );
    const { run } = await agentRun(
      dotDir,
      replies,
      ['--agent-jobs', '4', '--max-repairs', '2', '--prompts', '1', '--retries', '0'],
      800,
    );
    expect(run.exitCode, run.stdout + run.stderr).toBe(1);
    const file = results(dotDir);
    const status = Object.fromEntries(file.suggestions.map((s) => [s.id, s.status]));
    expect(status).toMatchObject({
      '2': 'failed',
      '3': 'failed',
      '4': 'repaired',
      '5': 'repaired',
      '6': 'skipped',
      '9': 'skipped',
    });
  });

  it('--max-cost: no call starts once the reported cost plus the calls in flight could pass it; the overshoot is at most the calls in flight', async (test) => {
    const { root, dotDir } = useFixture('demo', test);
    // Every answer is rejected (no patch) and costs $0.001, so each suggestion keeps asking.
    const replies = perSuggestion(root, () => 'I would remove the clause.');
    const cap = 0.0055;
    const { run, calls } = await agentRun(dotDir, replies, ['--agent-jobs', '4', '--max-cost', String(cap)], 600);
    expect(run.exitCode, run.stdout + run.stderr).toBe(1);
    const file = results(dotDir);
    const stream = events(dotDir);

    // Replay the run: at every call that started, the cost reported so far plus the calls in flight
    // (each at the dearest call seen) stayed below the cap.
    let reported = 0;
    let dearest = 0;
    let inFlight = 0;
    let inFlightWhenCapReached: number | null = null;
    for (const event of stream) {
      if (event.type === 'call-started' && event.tier === 'agent') {
        expect(reported).toBeLessThan(cap);
        expect(reported + inFlight * dearest).toBeLessThan(cap);
        inFlight += 1;
      }
      if (event.type === 'call-finished' && event.tier === 'agent') {
        // The call whose report reaches the cap was itself in flight until then.
        if (reported + (event.cost_usd ?? 0) >= cap && inFlightWhenCapReached === null)
          inFlightWhenCapReached = inFlight;
        inFlight -= 1;
        reported += event.cost_usd ?? 0;
        dearest = Math.max(dearest, event.cost_usd ?? 0);
      }
    }
    expect(inFlightWhenCapReached).not.toBeNull();
    expect(file.run.cost_usd).toBeCloseTo(calls.length * 0.001, 6);
    // The documented bound: the cap plus the calls that were in flight when it was reached.
    expect(file.run.cost_usd).toBeLessThanOrEqual(cap + inFlightWhenCapReached! * 0.001 + 1e-9);
    expect(file.run.cost_usd).toBeGreaterThanOrEqual(cap);
    expect(file.suggestions.some((s) => s.status === 'skipped' && s.reason?.startsWith('cost limit reached'))).toBe(
      true,
    );
  });

  it('the circuit breaker counts unreachable suggestions in completion order; after it trips no call starts and the rest get none', async (test) => {
    const { dotDir } = useFixture('demo', test);
    const { run, calls } = await agentRun(
      dotDir,
      [{ noAnswer: 'unreachable' }],
      ['--agent-jobs', '3', '--agent-error-retries', '1'],
      300,
    );
    expect(run.exitCode).toBe(1);
    const file = results(dotDir);
    expect(file.run.endpoint_down).toBe(true);
    expect(file.suggestions.filter((s) => FAILING.includes(s.id)).every((s) => s.status === 'agent_unreachable')).toBe(
      true,
    );

    const stream = events(dotDir);
    const finished = stream.flatMap((e, i) =>
      e.type === 'suggestion-finished' && e.record.status === 'agent_unreachable' ? [i] : [],
    );
    const tripped = finished[2]!;
    expect(stream.slice(tripped).some((e) => e.type === 'call-started')).toBe(false);
    // The three that tripped it used their whole allowance; at most the other two in flight made calls too.
    const byCompletion = finished.map((i) => (stream[i] as Extract<RunEvent, { type: 'suggestion-finished' }>).record);
    expect(byCompletion.slice(0, 3).map((r) => r.attempts)).toEqual([2, 2, 2]);
    expect(byCompletion.slice(3).filter((r) => r.attempts > 0).length).toBeLessThanOrEqual(2);
    expect(byCompletion.filter((r) => r.attempts === 0).length).toBeGreaterThanOrEqual(1);
    expect(calls.length).toBe(byCompletion.reduce((sum, r) => sum + r.attempts, 0));
  });

  it('a fatal agent error cancels the calls in flight (their processes are killed), skips the rest and exits 4', async (test) => {
    const { dotDir } = useFixture('demo', test);
    const replies: ScriptedReply[] = [
      {
        when: [
          ['parallelizing suggestion 4 (', { after: 1500, then: { fatal: 'quota' } }],
          ['parallelizing suggestion', { hang: true }],
        ],
      },
    ];
    const started = Date.now();
    const { run, calls } = await agentRun(dotDir, replies, ['--agent-jobs', '4', '--agent-timeout', '120'], 0);
    expect(run.exitCode, run.stdout + run.stderr).toBe(4);
    // The hanging calls did not run into their two-minute timeout: they were cancelled.
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(calls).toHaveLength(4);
    for (const call of calls) expect(isRunning(call.pid), `agent process ${call.pid}`).toBe(false);
    const file = results(dotDir);
    for (const id of FAILING) {
      const record = file.suggestions.find((s) => s.id === id)!;
      expect(record.status).toBe('skipped');
      expect(record.reason).toMatch(/quota/);
      expect(record.attempts).toBe(['2', '3', '4', '5'].includes(id) ? 1 : 0);
    }
  });
});
