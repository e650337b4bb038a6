// The real claude CLI (pinned, from .cache/agents) against the loopback stub: answers,
// follow-ups, every failure mode, and proof that it cannot write anything.
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent, CallResult } from '../../src/agent/types.js';
import { startStubProvider, type StubBehaviour, type StubProvider } from '../stub/stub-provider.js';
import { isolatedHome, realAgent, recordFixture, requireAgentCli, type RecordedRun } from './real-cli.js';

const claude = await requireAgentCli('claude');

describe.skipIf(claude === null)('claude CLI against the loopback stub', () => {
  let stub: StubProvider;
  let scratch: string;
  let agent: Agent;
  let runs: RecordedRun[];
  let env: Record<string, string>;

  const make = async (extraEnv: Record<string, string> = {}, agentTimeoutS = 20) =>
    realAgent({
      backend: 'claude',
      executable: claude!,
      model: 'claude-sonnet-4-5',
      env: { ...env, ...extraEnv },
      agentTimeoutS,
      scratchDir: scratch,
    });

  beforeAll(async () => {
    stub = await startStubProvider();
    scratch = mkdtempSync(join(tmpdir(), 'pr-claude-'));
    env = {
      ...isolatedHome().env,
      ANTHROPIC_BASE_URL: stub.url,
      ANTHROPIC_API_KEY: 'stub-key',
      CLAUDE_CODE_MAX_RETRIES: '1',
    };
    ({ agent, runs } = await make());
  });
  afterAll(async () => {
    await stub?.close();
  });

  const once = async (behaviours: StubBehaviour[], fixture: string, a: Agent = agent, r: RecordedRun[] = runs): Promise<CallResult> => {
    stub.script(behaviours);
    const c = await a.open();
    const result = await a.call(c, 'Fix this patch.');
    recordFixture('claude', fixture, r[r.length - 1]);
    await a.close(c);
    return result;
  };

  it('answers with the model text, reports usage, and sends no tools', async () => {
    stub.script([{ text: 'STUB ANSWER 1' }]);
    const before = stub.modelCalls().length;
    const c = await agent.open();
    const r = await agent.call(c, 'Fix this "patch":\n--- a/x.c\n');
    recordFixture('claude', 'answer', runs[runs.length - 1]);
    expect(r).toMatchObject({ kind: 'answered', text: 'STUB ANSWER 1' });
    if (r.kind !== 'answered') return;
    expect(r.usage).toMatchObject({ reachedModel: true, inputTokens: 10, outputTokens: 5, cliVersion: '2.1.197 (Claude Code)' });
    expect(r.usage.costUsd).toBeGreaterThan(0);
    expect(r.conversation.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const request = stub.modelCalls()[before]!;
    expect(request.body?.tools).toEqual([]);
    expect(request.body?.model).toBe('claude-sonnet-4-5');
    expect(JSON.stringify(request.body?.system)).toContain('You repair OpenMP patches.');
    expect(JSON.stringify(request.body?.messages)).toContain('Fix this \\"patch\\":\\n--- a/x.c');
    expect(readdirSync(c.dir)).toEqual([]);
    await agent.close(c);
    expect(existsSync(c.dir)).toBe(false);
  });

  it('continues a conversation by forking the last answered turn; a failed fork leaves no trace', async () => {
    stub.script([{ text: 'FIRST' }, { status: 500 }, { status: 500 }, { text: 'SECOND' }]);
    const before = stub.modelCalls().length;
    const c = await agent.open();
    const r1 = await agent.call(c, 'turn one');
    if (r1.kind !== 'answered') throw new Error(`turn 1: ${JSON.stringify(r1)}`);
    const failed = await agent.call(r1.conversation, 'turn two');
    expect(failed).toMatchObject({ kind: 'no-answer', reason: 'server-error' });
    const r2 = await agent.call(r1.conversation, 'turn two again');
    expect(r2).toMatchObject({ kind: 'answered', text: 'SECOND' });
    if (r2.kind !== 'answered') return;
    expect(r2.conversation.sessionId).not.toBe(r1.conversation.sessionId);
    expect(r2.conversation.turns.map((t) => t.answer)).toEqual(['FIRST', 'SECOND']);
    const last = stub.modelCalls().slice(before).at(-1)!;
    const messages = last.body?.messages as { role: string; content: unknown }[];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(messages[0])).toContain('turn one');
    expect(JSON.stringify(messages[1])).toContain('FIRST');
    expect(JSON.stringify(messages[2])).toContain('turn two again');
    expect(JSON.stringify(messages)).not.toContain('turn two"');
    await agent.close(c);
  });

  it.each([
    ['rate-limited-429', [{ status: 429 }], 'no-answer', 'rate-limited'],
    ['server-error-500', [{ status: 500 }], 'no-answer', 'server-error'],
    ['overloaded-529', [{ status: 529 }], 'no-answer', 'server-error'],
    ['dropped-connection', [{ drop: true }], 'no-answer', 'unreachable'],
    ['auth-401', [{ status: 401 }], 'fatal', 'auth'],
    ['quota-402', [{ status: 402 }], 'fatal', 'quota'],
  ] as const)('classifies %s', async (name, behaviours, kind, reason) => {
    const r = await once([...behaviours], name);
    expect(r).toMatchObject({ kind, reason });
    expect(r.usage.reachedModel).toBe(false);
  });

  it('a provider that never answers ends at the agent timeout as no answer', async () => {
    const short = await make({}, 4);
    const hang = await once([{ hang: true }], 'hang', short.agent, short.runs);
    expect(hang).toMatchObject({ kind: 'no-answer', reason: 'timeout' });
    const stall = await once([{ stall: true }], 'stall', short.agent, short.runs);
    expect(stall).toMatchObject({ kind: 'no-answer', reason: 'timeout' });
  });

  it('a closed port is unreachable', async () => {
    const closed = await make({ ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' });
    const r = await once([{ text: 'unused' }], 'closed-port', closed.agent, closed.runs);
    expect(r).toMatchObject({ kind: 'no-answer', reason: 'unreachable' });
  });

  it('no credentials at all is fatal (auth) without any model request', async () => {
    const before = stub.modelCalls().length;
    const loggedOut = await make({ ANTHROPIC_API_KEY: '' });
    const r = await once([{ text: 'unused' }], 'not-logged-in', loggedOut.agent, loggedOut.runs);
    expect(r).toMatchObject({ kind: 'fatal', reason: 'auth' });
    expect(stub.modelCalls().length).toBe(before);
  });

  it.each([
    ['write-tool', (target: string) => ({ name: 'Write', input: { file_path: target, content: 'pwned' } })],
    ['shell-tool', (target: string) => ({ name: 'Bash', input: { command: `touch ${target} && echo pwned > ${target}` } })],
  ] as const)('a model asking for the %s gets no tool: nothing is written anywhere', async (name, toolCall) => {
    const outside = mkdtempSync(join(tmpdir(), 'pr-claude-target-'));
    const target = join(outside, 'written-by-agent');
    stub.script([{ toolCall: toolCall(target) }, { toolCall: toolCall('relative-file') }, { text: 'DONE' }]);
    const c = await agent.open();
    const r = await agent.call(c, 'Write the file.');
    recordFixture('claude', name, runs[runs.length - 1]);
    // The CLI answered the tool call itself, with an error, instead of running it.
    expect(JSON.stringify(stub.modelCalls().at(-1)!.body?.messages)).toMatch(/No such tool available: (Write|Bash)/);
    expect(['answered', 'no-answer']).toContain(r.kind);
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(outside)).toEqual([]);
    expect(readdirSync(c.dir)).toEqual([]);
    await agent.close(c);
  });
});
