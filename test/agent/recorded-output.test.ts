// The output the real CLIs printed against the loopback stub (fixtures/agents/, recorded with
// RECORD_AGENT_FIXTURES=1 by the CLI tests), run through the production descriptors. Fast, and
// pins the answered / no-answer / fatal rule of agents.md §3 to real bytes.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDescriptor } from '../../src/agent/descriptor.js';
import { callResultOf } from '../../src/agent/result.js';
import type { RunOutcome } from '../../src/process.js';

const FIXTURES = resolve(import.meta.dirname, '..', '..', 'fixtures', 'agents');

function recorded(backend: string, name: string): RunOutcome {
  const file = join(FIXTURES, backend, `${name}.json`);
  return (JSON.parse(readFileSync(file, 'utf8')) as { outcome: RunOutcome }).outcome;
}

async function classify(backend: string, outcome: RunOutcome) {
  const descriptor = await loadDescriptor(backend);
  return callResultOf({
    descriptor,
    outcome,
    conversation: { id: 'c', dir: '/nonexistent', turns: [] },
    prompt: 'p',
    timeoutMs: 4000,
    executable: backend,
  });
}

const EXPECTED: Record<string, Record<string, string>> = {
  claude: {
    answer: 'answered',
    'write-tool': 'answered',
    'shell-tool': 'answered',
    'rate-limited-429': 'no-answer:rate-limited',
    'server-error-500': 'no-answer:server-error',
    'overloaded-529': 'no-answer:server-error',
    'dropped-connection': 'no-answer:unreachable',
    'closed-port': 'no-answer:unreachable',
    hang: 'no-answer:timeout',
    stall: 'no-answer:timeout',
    'auth-401': 'fatal:auth',
    'quota-402': 'fatal:quota',
    'not-logged-in': 'fatal:auth',
  },
  opencode: {
    answer: 'answered',
    'write-tool': 'answered',
    'shell-tool': 'answered',
    'rate-limited-429': 'no-answer:rate-limited',
    'server-error-500': 'no-answer:server-error',
    'overloaded-529': 'no-answer:server-error',
    'closed-port': 'no-answer:unreachable',
    'dropped-connection': 'no-answer:timeout',
    hang: 'no-answer:timeout',
    stall: 'no-answer:timeout',
    'auth-401': 'fatal:auth',
    'quota-402': 'fatal:quota',
  },
};

const cases = Object.entries(EXPECTED).flatMap(([backend, byCase]) =>
  Object.entries(byCase).map(([name, expected]) => [backend, name, expected] as const),
);

describe('recorded CLI output through the production descriptors', () => {
  it.each(cases)('%s %s → %s', async (backend, name, expected) => {
    if (!existsSync(join(FIXTURES, backend, `${name}.json`))) {
      expect.fail(
        `fixtures/agents/${backend}/${name}.json missing: record it with RECORD_AGENT_FIXTURES=1 npx vitest run test/agent/${backend}-cli.test.ts`,
      );
    }
    const r = await classify(backend, recorded(backend, name));
    expect(r.kind === 'answered' ? 'answered' : `${r.kind}:${r.reason}`).toBe(expected);
  });

  it('reads the answer text, session id, tokens and cost', async () => {
    const claude = await classify('claude', recorded('claude', 'answer'));
    expect(claude).toMatchObject({
      kind: 'answered',
      text: 'STUB ANSWER 1',
      usage: { inputTokens: 10, outputTokens: 5, reachedModel: true },
    });
    expect(claude.usage.costUsd).toBeCloseTo(0.000105, 6);
    const opencode = await classify('opencode', recorded('opencode', 'answer'));
    expect(opencode).toMatchObject({
      kind: 'answered',
      text: 'STUB ANSWER 1',
      usage: { inputTokens: 10, outputTokens: 5 },
    });
    // Its recorded cost is 0 for 15 tokens: no price for the stub's model, so unknown rather than free.
    expect(opencode.usage.costUsd).toBeUndefined();
    if (opencode.kind === 'answered') expect(opencode.conversation.sessionId).toMatch(/^ses_/);
  });

  it('sums the usage of every step when opencode made a tool round-trip', async () => {
    const r = await classify('opencode', recorded('opencode', 'write-tool'));
    expect(r).toMatchObject({ kind: 'answered', text: 'DONE', usage: { inputTokens: 20, outputTokens: 10 } });
  });

  it('a claude error stays an error when the CLI exits 0 (anthropics/claude-code #79500)', async () => {
    const outcome = recorded('claude', 'auth-401');
    const r = await classify('claude', { ...outcome, kind: 'exited', exitCode: 0 } as RunOutcome);
    expect(r).toMatchObject({ kind: 'fatal', reason: 'auth' });
    expect(r.kind !== 'answered' && r.detail).toContain('Invalid API key');
  });

  it('an exit code of 0 is not enough: opencode\'s endless loop (step_finish "unknown") is no answer', async () => {
    const outcome = recorded('opencode', 'answer');
    const looping = {
      ...outcome,
      stdout: (outcome as { stdout: string }).stdout.replace('"reason":"stop"', '"reason":"unknown"'),
    } as RunOutcome;
    expect(await classify('opencode', looping)).toMatchObject({ kind: 'no-answer', reason: 'crashed' });
  });

  it('a parsed success with a non-zero exit is no answer', async () => {
    const outcome = recorded('claude', 'answer');
    expect(await classify('claude', { ...outcome, exitCode: 1 } as RunOutcome)).toMatchObject({ kind: 'no-answer' });
  });

  it('output cut at the size limit is no answer, and says so', async () => {
    const outcome = recorded('claude', 'answer') as Extract<RunOutcome, { kind: 'exited' }>;
    const cut = { ...outcome, stdout: outcome.stdout.slice(0, 100), truncated: true };
    const r = await classify('claude', cut);
    expect(r).toMatchObject({ kind: 'no-answer', reason: 'crashed' });
    expect(r.kind !== 'answered' && r.detail).toContain('size limit');
  });

  it('a CLI killed at the agent timeout while retrying is classified by the error it logged', async () => {
    const logged = recorded('opencode', 'server-error-500') as Extract<RunOutcome, { kind: 'exited' }>;
    const killed: RunOutcome = {
      kind: 'timeout',
      stdout: '',
      stderr: logged.stderr,
      truncated: false,
      durationMs: 4000,
    };
    const r = await classify('opencode', killed);
    expect(r).toMatchObject({ kind: 'no-answer', reason: 'server-error' });
    expect(r.kind !== 'answered' && r.detail).toMatch(
      /^no answer within 4 s \(agent timeout\); the CLI was killed while retrying after: .*Internal server error/,
    );
    const silent = await classify('opencode', { ...killed, stderr: '' });
    expect(silent).toMatchObject({ kind: 'no-answer', reason: 'timeout' });
  });

  it('an executable that cannot start is a misconfigured backend', async () => {
    const r = await classify('claude', { kind: 'spawn-failed', message: 'spawn claude ENOENT', durationMs: 1 });
    expect(r).toMatchObject({ kind: 'fatal', reason: 'misconfigured' });
  });
});
