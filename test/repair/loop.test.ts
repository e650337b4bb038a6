// The attempt loop and its budget, driven by the scripted agent through the real agent runner,
// on a real project (answers that reach the build check are built with gcc).
import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINT_DOWN_REASON, RunBudget } from '../../src/repair/budget.js';
import { loadPromptLadder, type PromptLadder } from '../../src/repair/ladder.js';
import { repairSuggestion } from '../../src/repair/loop.js';
import type { AttemptRecord } from '../../src/formats/attempt.js';
import type { RepairOutcome } from '../../src/formats/outcome.js';
import type { RepairDeps } from '../../src/repair/deps.js';
import type { RunOptions } from '../../src/formats/run-options.js';
import { AttemptStore } from '../../src/store/attempts.js';
import { createScriptedAgent, type ScriptedAgent, type ScriptedReply } from '../helpers/scripted-agent.js';
import { answerDiff, createTestProject, GOOD_DIRECTIVE, testOptions, type TestProject } from './project.js';

let project: TestProject;
let ladder: PromptLadder;
let generatorBefore: Record<string, string>;
const NO_DIFF = 'I would remove tmp_var37 from the shared clause.';
const good = () => answerDiff(project.root, GOOD_DIRECTIVE);
/** What the run-level budget said when it stopped the agent, from the events it emitted. */
const stops = () =>
  project.events.flatMap((e) => (e.type === 'agent-stopped' ? [{ reason_code: e.reason_code, reason: e.reason }] : []));

beforeAll(async () => {
  project = await createTestProject();
  ladder = await loadPromptLadder();
  generatorBefore = await project.generatorSnapshot();
});
afterEach(async () => {
  expect(await project.generatorSnapshot()).toEqual(generatorBefore);
});
afterAll(async () => {
  await project?.dispose();
});

interface Harness {
  agent: ScriptedAgent;
  deps: RepairDeps;
  written: AttemptRecord[];
  repair(): Promise<RepairOutcome>;
}

async function harness(
  replies: ScriptedReply[],
  o: { options?: Parameters<typeof testOptions>[0]; budget?: RunBudget } = {},
): Promise<Harness> {
  const scratch = await mkdtemp(path.join(project.scratch, 'loop-'));
  const agent = await createScriptedAgent({ scratchDir: scratch, replies, systemPrompt: ladder.system });
  const options: RunOptions = testOptions(o.options);
  const written: AttemptRecord[] = [];
  project.events.length = 0;
  const deps: RepairDeps = {
    dp: project.dp,
    options,
    pool: project.pool,
    agent,
    emit: project.emit,
    attempts: { writeAnswer: async () => undefined, write: async (t) => void written.push(t) },
    signal: new AbortController().signal,
    budget: o.budget ?? new RunBudget({ maxCostUsd: options.agent.maxCostUsd, emit: project.emit }),
    scratchDir: scratch,
    ladder,
  };
  return { agent, deps, written, repair: () => repairSuggestion(project.task, deps) };
}

describe('conversations and follow-ups', () => {
  it('opens a fresh conversation per rung and tells the model only what was wrong in a follow-up', async () => {
    const h = await harness([NO_DIFF, NO_DIFF, NO_DIFF, good()], { options: { agent: { prompts: 2, retries: 1 } } });
    const outcome = await h.repair();
    expect(outcome).toMatchObject({
      status: 'repaired',
      tier: 'agent',
      acceptedAttempt: 4,
      calls: 4,
      unanswered: 0,
      changedFiles: ['1'],
    });
    const calls = await h.agent.calls();
    expect(calls.map((c) => c.resumed === null)).toEqual([true, false, true, false]);
    expect(h.written.map((t) => [t.conversation, t.turn, t.source])).toEqual([
      [1, 0, 'rung-1.md'],
      [1, 1, 'follow-up.md'],
      [2, 0, 'rung-2.md'],
      [2, 1, 'follow-up.md'],
    ]);
    // The first call of a conversation carries the generated patch and the diagnostics ...
    expect(calls[0]!.prompt).toContain('shared(a,b,tmp_var37)');
    expect(calls[0]!.prompt).toMatch(/main\.c:11:\d+: error: .*tmp_var37/);
    // Every rung, the first included, shows the original source the answer's diff must apply to.
    for (const opening of [calls[0]!, calls[2]!]) {
      expect(opening.prompt).toContain('## Original source around each patched region');
      expect(opening.prompt).toMatch(/^ *12 {2}        sum \+= a\[i\] \* b\[i\];$/m);
    }
    // ... a follow-up only the rejection.
    expect(calls[1]!.prompt).toContain('rejected at the "extraction" check');
    expect(calls[1]!.prompt).toContain('holds no unified diff');
    expect(calls[1]!.prompt).not.toContain('tmp_var37');
    if (outcome.status !== 'repaired') throw new Error(outcome.reason);
    expect(outcome.canonical.get('1')).toContain(`+${GOOD_DIRECTIVE}\n`);
  });

  it('repeats the last rung when --prompts exceeds the ladder, and fails once every attempt is rejected', async () => {
    const h = await harness([NO_DIFF], { options: { agent: { prompts: 4, retries: 0, maxAttempts: 10 } } });
    const outcome = await h.repair();
    expect(h.written.map((t) => t.source)).toEqual(['rung-1.md', 'rung-2.md', 'rung-3.md', 'rung-3.md']);
    expect(outcome).toMatchObject({ status: 'failed', calls: 4, unanswered: 0 });
    if (outcome.status === 'repaired') throw new Error('unexpected repair');
    expect(outcome.reason).toMatch(
      /^no candidate passed verification \(4 conversation\(s\) × 0 follow-up\(s\) used\); last: attempt 4 rejected at extraction: /,
    );
  });

  it('makes prompts × (1 + retries) answered calls at most', async () => {
    const h = await harness([NO_DIFF], { options: { agent: { prompts: 2, retries: 2, maxAttempts: 100 } } });
    expect(await h.repair()).toMatchObject({ status: 'failed', calls: 6 });
    expect(await h.agent.calls()).toHaveLength(6);
  });

  it('stops at --max-attempts answered calls', async () => {
    const h = await harness([NO_DIFF], { options: { agent: { prompts: 3, retries: 2, maxAttempts: 4 } } });
    const outcome = await h.repair();
    expect(outcome).toMatchObject({ status: 'failed', calls: 4 });
    expect(outcome.status !== 'repaired' && outcome.reason).toMatch(/--max-attempts 4 reached/);
  });
});

describe('calls without an answer', () => {
  it('are repeated in place, counted apart, and use no prompt or retry', async () => {
    const h = await harness([{ noAnswer: 'server-error' }, { noAnswer: 'rate-limited' }, NO_DIFF, good()], {
      options: { agent: { prompts: 1, retries: 1, agentErrorRetries: 2 } },
    });
    const outcome = await h.repair();
    expect(outcome).toMatchObject({ status: 'repaired', calls: 4, unanswered: 2, acceptedAttempt: 4 });
    const calls = await h.agent.calls();
    expect(calls[1]!.prompt).toBe(calls[0]!.prompt);
    expect(calls[2]!.prompt).toBe(calls[0]!.prompt);
    expect(calls[3]!.prompt).toContain('rejected at the "extraction" check');
    expect(h.written.map((t) => [t.callOutcome, t.conversation, t.turn])).toEqual([
      ['server-error', 1, 0],
      ['rate-limited', 1, 0],
      ['answered', 1, 0],
      ['answered', 1, 1],
    ]);
  });

  it('end in agent_unreachable, never failed, once --agent-error-retries is spent', async () => {
    const h = await harness([{ noAnswer: 'unreachable' }], { options: { agent: { agentErrorRetries: 2 } } });
    const outcome = await h.repair();
    expect(outcome).toMatchObject({ status: 'agent_unreachable', calls: 3, unanswered: 3 });
    expect(outcome.status !== 'repaired' && outcome.reason).toMatch(
      /^no answer from the agent \(unreachable: .*\); --agent-error-retries 2 spent$/,
    );
  });

  it('after three unreachable suggestions in a row the endpoint is down: no further calls', async () => {
    const budget = new RunBudget({ emit: project.emit });
    const h = await harness([{ noAnswer: 'unreachable' }], { options: { agent: { agentErrorRetries: 0 } }, budget });
    const statuses: string[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await h.repair()).status);
    expect(statuses).toEqual(['agent_unreachable', 'agent_unreachable', 'agent_unreachable', 'agent_unreachable']);
    expect(stops()).toEqual([{ reason_code: 'endpoint-down', reason: ENDPOINT_DOWN_REASON }]);
    expect(await h.agent.calls()).toHaveLength(3);
    const last = await h.repair();
    expect(last).toMatchObject({ status: 'agent_unreachable', calls: 0, unanswered: 0 });
  });

  it('an answered suggestion resets the unreachable streak', async () => {
    const budget = new RunBudget({ emit: project.emit });
    const unreachable = await harness([{ noAnswer: 'unreachable' }], {
      options: { agent: { agentErrorRetries: 0 } },
      budget,
    });
    await unreachable.repair();
    await unreachable.repair();
    const answering = await harness([NO_DIFF], { options: { agent: { prompts: 1, retries: 0 } }, budget });
    expect((await answering.repair()).status).toBe('failed');
    await unreachable.repair();
    await unreachable.repair();
    expect(stops()).toEqual([]);
  });
});

describe('run-level stops', () => {
  it('a fatal agent error stops all agent calls: this and every later suggestion are skipped', async () => {
    const budget = new RunBudget({ emit: project.emit });
    const h = await harness([{ fatal: 'auth' }, good()], { budget });
    const outcome = await h.repair();
    expect(outcome).toMatchObject({ status: 'skipped', calls: 1, unanswered: 1 });
    expect(stops()).toEqual([
      { reason_code: 'fatal-agent', reason: expect.stringMatching(/^agent unusable \(auth\): /) },
    ]);
    expect(outcome.status !== 'repaired' && outcome.reason).toMatch(/^agent unusable \(auth\): /);
    const next = await h.repair();
    expect(next).toMatchObject({ status: 'skipped', calls: 0 });
    expect(await h.agent.calls()).toHaveLength(1);
  });

  it('--max-cost stops agent calls once the reported cost reaches it', async () => {
    // The scripted agent reports $0.001 per answered call.
    const budget = new RunBudget({ maxCostUsd: 0.002, emit: project.emit });
    const h = await harness([NO_DIFF], { options: { agent: { prompts: 2, retries: 2 } }, budget });
    const outcome = await h.repair();
    expect(outcome).toMatchObject({ status: 'skipped', calls: 2 });
    expect(outcome.status !== 'repaired' && outcome.reason).toMatch(
      /^cost limit reached: \$0\.0020 of --max-cost \$0\.002$/,
    );
    expect(await h.repair()).toMatchObject({ status: 'skipped', calls: 0 });
    expect(await h.agent.calls()).toHaveLength(2);
  });
});

describe('interrupts', () => {
  it('an interrupted run makes no further call and leaves the suggestion skipped', async () => {
    const h = await harness([good()]);
    const controller = new AbortController();
    controller.abort();
    const outcome = await repairSuggestion(project.task, { ...h.deps, signal: controller.signal });
    expect(outcome).toMatchObject({ status: 'skipped', reason: 'interrupted', calls: 0 });
    expect(await h.agent.calls()).toHaveLength(0);
  });
});

describe('the built-in repairer tier', () => {
  it('without an agent and with --no-builtin the suggestion fails and says why', async () => {
    const h = await harness([good()], { options: { builtin: false } });
    const outcome = await repairSuggestion(project.task, { ...h.deps, agent: null });
    expect(outcome).toMatchObject({
      status: 'failed',
      calls: 0,
      builtin: { tries: 0, accepted: false, declined: null },
    });
    expect(outcome.status !== 'repaired' && outcome.reason).toBe(
      'no agent available and the built-in repairer is off (--no-builtin)',
    );
  });

  it('a declined built-in attempt is recorded, and without an agent the suggestion fails with its reason', async () => {
    const h = await harness([good()], { options: { builtin: true } });
    // As the build stage records a patch failure: the output opens with 'patching file', firstError is patch's complaint.
    const unappliable = {
      ...project.task,
      build: {
        ...project.task.build,
        failedAt: 'patch' as const,
        output: 'patching file src/main.c\nHunk #1 FAILED at 8.\n',
        firstError: 'src/main.c: Hunk #1 FAILED at 8.',
      },
    };
    const outcome = await repairSuggestion(unappliable, { ...h.deps, agent: null });
    expect(outcome).toMatchObject({ status: 'failed', calls: 0, builtin: { tries: 1, accepted: false } });
    expect(outcome.builtin.declined).toMatch(
      /^declined: the generated patch does not apply \(src\/main\.c: Hunk #1 FAILED at 8\.\)/,
    );
    expect(outcome.status !== 'repaired' && outcome.reason).toMatch(
      /^built-in repairer: declined: .*; no agent available$/,
    );
    expect(h.written).toMatchObject([{ tier: 'builtin', attempt: 1, callOutcome: 'declined', answer: null }]);
  });

  it('goes first, through the same checks, and uses no agent budget', async () => {
    const h = await harness([good()], { options: { builtin: true } });
    const outcome = await h.repair();
    expect(await h.agent.calls()).toHaveLength(0);
    expect(outcome).toMatchObject({
      status: 'repaired',
      tier: 'builtin',
      calls: 0,
      unanswered: 0,
      acceptedAttempt: 1,
      builtin: { tries: 1, accepted: true, declined: null },
    });
    expect(h.written[0]).toMatchObject({ tier: 'builtin', attempt: 1, verification: { accepted: true } });
    // One conversation number for the built-in repairer, in its event as in its record (0: no --prompts conversation).
    const started = project.events.find((e) => e.type === 'call-started');
    expect(started).toMatchObject({ tier: 'builtin', attempt: 1, prompt: h.written[0]!.conversation, turn: 0 });
    expect(h.written[0]!.conversation).toBe(0);
    expect(h.written[0]!.verification!.checks.map((c) => c.check)).toEqual([
      'extraction',
      'dry-run-apply',
      'apply',
      'canonicalize',
      'directives-kept',
      'builds',
    ]);
  });
});

describe('transcripts and events', () => {
  it('writes every attempt under attempts/<id>/<n>/ and emits call and check events', async () => {
    const h = await harness([{ noAnswer: 'timeout' }, NO_DIFF, good()], {
      options: { agent: { prompts: 1, retries: 1 } },
    });
    const outcome = await repairSuggestion(project.task, { ...h.deps, attempts: new AttemptStore(project.dot) });
    expect(outcome).toMatchObject({ status: 'repaired', acceptedAttempt: 3 });
    const dir = path.join(project.dot, 'patch_repair', 'attempts', '1');
    expect((await readdir(dir)).sort()).toEqual(['1', '2', '3']);
    const verdict = async (n: number) => JSON.parse(await readFile(path.join(dir, String(n), 'verdict.json'), 'utf8'));
    expect(await verdict(1)).toMatchObject({ call_outcome: 'timeout', outcome: 'unanswered', rejected_by: null });
    expect(await verdict(2)).toMatchObject({
      call_outcome: 'answered',
      outcome: 'rejected',
      rejected_by: 'extraction',
    });
    expect(await verdict(3)).toMatchObject({
      outcome: 'accepted',
      rejected_by: null,
      apply_report: { basis: 'unpatched' },
    });
    expect(await readFile(path.join(dir, '3', 'response.txt'), 'utf8')).toBe(good());
    expect(await readFile(path.join(dir, '3', 'prompt.txt'), 'utf8')).toContain('rejected at the "extraction" check');
    expect(await readFile(path.join(dir, '3', 'canonical', '1.patch'), 'utf8')).toContain(`+${GOOD_DIRECTIVE}\n`);
    expect(await readdir(path.join(dir, '3', 'candidate'))).toEqual(['1.patch']);
    expect(await readFile(path.join(dir, '2', 'rejection.txt'), 'utf8')).toMatch(/^extraction: /);

    const kinds = project.events.flatMap((e) => {
      if (e.type === 'check') return [`check:${e.check}:${e.passed}`];
      if (e.type === 'call-started' || e.type === 'call-finished') return [`${e.type}:${e.attempt}`];
      return [];
    });
    expect(kinds).toEqual([
      'call-started:1',
      'call-finished:1',
      'call-started:2',
      'call-finished:2',
      'check:extraction:false',
      'call-started:3',
      'call-finished:3',
      'check:extraction:true',
      'check:dry-run-apply:true',
      'check:apply:true',
      'check:canonicalize:true',
      'check:directives-kept:true',
      'check:builds:true',
    ]);
  });
});
