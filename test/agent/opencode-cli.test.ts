// The real opencode CLI (pinned, from .cache/agents) against the loopback stub, configured the
// way a user with a local OpenAI-compatible server would: a provider in their own opencode.json,
// merged with the agent definition patch-repair passes in OPENCODE_CONFIG_CONTENT.
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent, CallResult } from '../../src/agent/types.js';
import { startStubProvider, type StubBehaviour, type StubProvider } from '../stub/stub-provider.js';
import { isolatedHome, realAgent, recordFixture, requireAgentCli, writeOpencodeUserConfig, type RecordedRun } from './real-cli.js';

const opencode = await requireAgentCli('opencode');

type Message = { role: string; content: unknown };

describe.skipIf(opencode === null)('opencode CLI against the loopback stub', () => {
  let stub: StubProvider;
  let scratch: string;
  let agent: Agent;
  let runs: RecordedRun[];
  let env: Record<string, string>;
  let closedPort: Promise<CallResult | Error>;

  // Generous: on a loaded 2-core machine one opencode call has taken 30 s; normally it takes 5-7 s.
  const make = async (agentTimeoutS = 90) =>
    realAgent({ backend: 'opencode', executable: opencode!, model: 'stub/stub-model', env, agentTimeoutS, scratchDir: scratch });

  beforeAll(async () => {
    stub = await startStubProvider();
    scratch = mkdtempSync(join(tmpdir(), 'pr-opencode-'));
    const home = isolatedHome();
    writeOpencodeUserConfig(home.home, stub.url);
    env = home.env;
    ({ agent, runs } = await make());
    // opencode makes 6 attempts over about 75 s against a closed port and has no switch to make
    // fewer: the call starts here, with its own home and no stub, so its wait overlaps the tests.
    closedPort = callClosedPort().catch((error: Error) => error);
  });
  afterAll(async () => {
    await stub?.close();
  });

  const once = async (behaviours: StubBehaviour[], fixture: string, a: Agent = agent, r: RecordedRun[] = runs): Promise<CallResult> => {
    stub.script(behaviours);
    const c = await a.open();
    const result = await a.call(c, 'Fix this patch.');
    recordFixture('opencode', fixture, r[r.length - 1]);
    await a.close(c);
    return result;
  };

  it('answers with the model text, with our system prompt and no tools', async () => {
    stub.script([{ text: 'STUB ANSWER 1' }]);
    const before = stub.modelCalls().length;
    const c = await agent.open();
    const r = await agent.call(c, 'Fix this "patch":\n--- a/x.c\n');
    recordFixture('opencode', 'answer', runs[runs.length - 1]);
    expect(r).toMatchObject({ kind: 'answered', text: 'STUB ANSWER 1' });
    if (r.kind !== 'answered') return;
    expect(r.usage).toMatchObject({ reachedModel: true, inputTokens: 10, outputTokens: 5, cliVersion: '1.18.33' });
    // opencode prices a custom provider's tokens at 0: unknown, so no cost is recorded.
    expect(r.usage.costUsd).toBeUndefined();
    expect(r.conversation.sessionId).toMatch(/^ses_/);
    const calls = stub.modelCalls().slice(before);
    expect(calls).toHaveLength(1);
    const body = calls[0]!.body!;
    expect(body.tools).toBeUndefined();
    expect(body.model).toBe('stub-model');
    const messages = body.messages as Message[];
    expect(String(messages[0]!.content)).toContain('You repair OpenMP patches.');
    expect(messages.at(-1)!.content).toBe('Fix this "patch":\n--- a/x.c\n');
    expect(readdirSync(c.dir)).toEqual([]);
    await agent.close(c);
    expect(existsSync(c.dir)).toBe(false);
  });

  it('continues a conversation by forking the last answered turn; a failed fork leaves no trace', async () => {
    stub.script([{ text: 'FIRST' }, { status: 401 }, { text: 'SECOND' }]);
    const before = stub.modelCalls().length;
    const c = await agent.open();
    const r1 = await agent.call(c, 'turn one');
    if (r1.kind !== 'answered') throw new Error(`turn 1: ${JSON.stringify(r1)}`);
    const failed = await agent.call(r1.conversation, 'turn two');
    recordFixture('opencode', 'auth-401', runs[runs.length - 1]);
    // opencode exits 1 here; the error line, not the exit code, makes it fatal.
    expect(failed).toMatchObject({ kind: 'fatal', reason: 'auth' });
    const r2 = await agent.call(r1.conversation, 'turn two again');
    expect(r2).toMatchObject({ kind: 'answered', text: 'SECOND' });
    if (r2.kind !== 'answered') return;
    expect(r2.conversation.sessionId).not.toBe(r1.conversation.sessionId);
    const last = stub.modelCalls().slice(before).at(-1)!;
    const messages = last.body?.messages as Message[];
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(JSON.stringify(messages[1])).toContain('turn one');
    expect(JSON.stringify(messages[2])).toContain('FIRST');
    expect(JSON.stringify(messages[3])).toContain('turn two again');
    await agent.close(c);
  });

  it.each([
    ['rate-limited-429', [{ status: 429 }], 'no-answer', 'rate-limited'],
    ['server-error-500', [{ status: 500 }], 'no-answer', 'server-error'],
    ['quota-402', [{ status: 402 }], 'fatal', 'quota'],
  ] as const)('classifies %s', async (name, behaviours, kind, reason) => {
    const r = await once([...behaviours], name);
    expect(r).toMatchObject({ kind, reason });
    expect(r.usage.reachedModel).toBe(false);
  });

  // opencode retries these itself for over a minute with no switch to lower the count
  // (agents.md §2.5); the agent timeout is what ends them. The error it logged while retrying
  // names the cause when there was one.
  // (A stalled stream behaves like the hang; the claude tests and the recorded fixture cover it.)
  it('a dropped connection and a hang end at the agent timeout as no answer', async () => {
    const short = await make(15);
    // A drop is "unreachable" once opencode has logged a failed attempt; on a loaded machine its
    // start-up alone can use up the timeout, and then it is a plain timeout.
    const expected = { 'dropped-connection': ['unreachable', 'timeout'], hang: ['timeout'] };
    for (const [name, behaviour] of [['dropped-connection', { drop: true }], ['hang', { hang: true }]] as const) {
      const r = await once([behaviour], name, short.agent, short.runs);
      expect(r.kind, name).toBe('no-answer');
      expect(expected[name], name).toContain(r.kind !== 'answered' && r.reason);
    }
  });

  it.each([
    ['write-tool', (target: string) => ({ name: 'write', input: { filePath: target, content: 'pwned' } })],
    ['shell-tool', (target: string) => ({ name: 'bash', input: { command: `touch ${target}`, description: 'touch' } })],
  ] as const)('a model asking for the %s gets no tool: nothing is written anywhere', async (name, toolCall) => {
    const outside = mkdtempSync(join(tmpdir(), 'pr-opencode-target-'));
    const target = join(outside, 'written-by-agent');
    stub.script([{ toolCall: toolCall(target) }, { text: 'DONE' }]);
    const c = await agent.open();
    const r = await agent.call(c, 'Write the file.');
    recordFixture('opencode', name, runs[runs.length - 1]);
    expect(['answered', 'no-answer']).toContain(r.kind);
    if (r.kind === 'answered') {
      // opencode answered the tool call itself, with an error, instead of running it.
      expect(JSON.stringify(stub.modelCalls().at(-1)!.body?.messages)).toContain('unavailable tool');
    }
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(outside)).toEqual([]);
    expect(readdirSync(c.dir)).toEqual([]);
    await agent.close(c);
  });

  async function callClosedPort(): Promise<CallResult> {
    const home = isolatedHome();
    writeOpencodeUserConfig(home.home, 'http://127.0.0.1:9');
    const closed = await realAgent({ backend: 'opencode', executable: opencode!, model: 'stub/stub-model', env: home.env, agentTimeoutS: 300, scratchDir: scratch });
    const c = await closed.agent.open();
    const result = await closed.agent.call(c, 'Fix this patch.');
    recordFixture('opencode', 'closed-port', closed.runs.at(-1));
    await closed.agent.close(c);
    return result;
  }

  // Last, so that the call started before the first test has had the other tests' time to end.
  it('a closed port is unreachable', async () => {
    expect(await closedPort).toMatchObject({ kind: 'no-answer', reason: 'unreachable' });
  }, 320_000);
});
