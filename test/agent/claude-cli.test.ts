// The real claude CLI (pinned, from .cache/agents) against the loopback stub: answers,
// follow-ups, every failure mode, and proof that it cannot write anything.
// The tests run at the same time, as a run's parallel repairs call the agent, against one stub,
// which tells their calls apart by prompt.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Agent, CallResult } from '../../src/agent/types.js';
import { startStubProvider, type StubBehaviour, type StubProvider } from '../stub/stub-provider.js';
import { answerCall, callOnce, isolatedHome, realAgent, recordedCall, requireAgentCli } from './real-cli.js';

const claude = await requireAgentCli('claude');

describe.skipIf(claude === null).concurrent('claude CLI against the loopback stub', () => {
  let stub: StubProvider;
  let scratch: string;
  let env: Record<string, string>;
  let agent: Agent;

  const make = async (
    extraEnv: Record<string, string> = {},
    agentTimeoutS = 20,
    backendOptions?: Record<string, string>,
  ) =>
    realAgent({
      backend: 'claude',
      executable: claude!,
      model: 'claude-sonnet-4-5',
      env: { ...env, ...extraEnv },
      agentTimeoutS,
      scratchDir: scratch,
      backendOptions,
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
    agent = await make();
  });
  afterAll(async () => {
    await stub?.close();
  });

  const once = (fixture: string, behaviours: StubBehaviour[], a: Agent = agent): Promise<CallResult> =>
    callOnce(stub, a, fixture, behaviours);

  it('answers with the model text, reports usage, and sends no tools', async ({ expect }) => {
    const { conversation: c, result: r, requests } = await answerCall(stub, agent);
    expect(r).toMatchObject({ kind: 'answered', text: 'STUB ANSWER 1' });
    if (r.kind !== 'answered') return;
    expect(r.usage).toMatchObject({
      reachedModel: true,
      inputTokens: 10,
      outputTokens: 5,
      cliVersion: '2.1.197 (Claude Code)',
    });
    expect(r.usage.costUsd).toBeGreaterThan(0);
    expect(r.conversation.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const request = requests[0]!;
    expect(request.body?.tools).toEqual([]);
    expect(request.body?.model).toBe('claude-sonnet-4-5');
    expect(JSON.stringify(request.body?.system)).toContain('You repair OpenMP patches.');
    expect(JSON.stringify(request.body?.messages)).toContain('Fix this \\"patch\\":\\n--- a/x.c');
    expect(readdirSync(c.dir)).toEqual([]);
    await agent.close(c);
    expect(existsSync(c.dir)).toBe(false);
  });

  it('continues a conversation by forking the last answered turn; a failed fork leaves no trace', async ({
    expect,
  }) => {
    stub.route('turn one', [{ text: 'FIRST' }]);
    stub.route('turn two', [{ status: 500 }]);
    const again = stub.route('turn two again', [{ text: 'SECOND' }]);
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
    const last = again.modelCalls().at(-1)!;
    const messages = last.body?.messages as { role: string; content: unknown }[];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(messages[0])).toContain('turn one');
    expect(JSON.stringify(messages[1])).toContain('FIRST');
    expect(JSON.stringify(messages[2])).toContain('turn two again');
    expect(JSON.stringify(messages)).not.toContain('turn two"');
    await agent.close(c);
  });

  it.for([
    ['rate-limited-429', [{ status: 429 }], 'no-answer', 'rate-limited'],
    ['server-error-500', [{ status: 500 }], 'no-answer', 'server-error'],
    ['overloaded-529', [{ status: 529 }], 'no-answer', 'server-error'],
    ['dropped-connection', [{ drop: true }], 'no-answer', 'unreachable'],
    ['auth-401', [{ status: 401 }], 'fatal', 'auth'],
    ['quota-402', [{ status: 402 }], 'fatal', 'quota'],
  ] as const)('classifies %s', async ([name, behaviours, kind, reason], { expect }) => {
    const r = await once(name, [...behaviours]);
    expect(r).toMatchObject({ kind, reason });
    expect(r.usage.reachedModel).toBe(false);
  });

  it('a provider that never answers ends at the agent timeout as no answer', async ({ expect }) => {
    const short = await make({}, 4);
    const [hang, stall] = await Promise.all([
      once('hang', [{ hang: true }], short),
      once('stall', [{ stall: true }], short),
    ]);
    expect(hang).toMatchObject({ kind: 'no-answer', reason: 'timeout' });
    expect(stall).toMatchObject({ kind: 'no-answer', reason: 'timeout' });
  });

  it('a closed port is unreachable', async ({ expect }) => {
    const closed = await make({ ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' });
    const r = await once('closed-port', [{ text: 'unused' }], closed);
    expect(r).toMatchObject({ kind: 'no-answer', reason: 'unreachable' });
  });

  it('no credentials at all is fatal (auth) without any model request', async ({ expect }) => {
    // A provider of its own: any request this call made would show there, whatever its prompt.
    const own = await startStubProvider([{ text: 'unused' }]);
    try {
      const loggedOut = await make({ ANTHROPIC_BASE_URL: own.url, ANTHROPIC_API_KEY: '' });
      const r = await once('not-logged-in', [{ text: 'unused' }], loggedOut);
      expect(r).toMatchObject({ kind: 'fatal', reason: 'auth' });
      expect(own.modelCalls()).toEqual([]);
    } finally {
      await own.close();
    }
  });

  it.for([
    ['write-tool', (target: string) => ({ name: 'Write', input: { file_path: target, content: 'pwned' } })],
    [
      'shell-tool',
      (target: string) => ({ name: 'Bash', input: { command: `touch ${target} && echo pwned > ${target}` } }),
    ],
  ] as const)(
    'a model asking for the %s gets no tool: nothing is written anywhere',
    async ([name, toolCall], { expect }) => {
      const outside = mkdtempSync(join(tmpdir(), 'pr-claude-target-'));
      const target = join(outside, 'written-by-agent');
      const prompt = `Write the file (${name}).`;
      const route = stub.route(prompt, [
        { toolCall: toolCall(target) },
        { toolCall: toolCall('relative-file') },
        { text: 'DONE' },
      ]);
      const c = await agent.open();
      const r = await recordedCall(agent, c, prompt, name);
      // The CLI answered the tool call itself, with an error, instead of running it.
      expect(JSON.stringify(route.modelCalls().at(-1)!.body?.messages)).toMatch(/No such tool available: (Write|Bash)/);
      expect(['answered', 'no-answer']).toContain(r.kind);
      expect(existsSync(target)).toBe(false);
      expect(readdirSync(outside)).toEqual([]);
      expect(readdirSync(c.dir)).toEqual([]);
      await agent.close(c);
    },
  );

  // DiscoPoP's llm_config.json may name a claude agent (`backend_options.agent`, passed as --agent).
  it("an `agent` option naming claude's built-in agent with every tool still offers the model no tool, and its tool calls run nothing", async ({
    expect,
  }) => {
    const withAgent = await make({}, 20, { agent: 'general-purpose' });
    const outside = mkdtempSync(join(tmpdir(), 'pr-claude-target-'));
    const target = join(outside, 'written-by-agent');
    const prompt = 'Write the file (agent option).';
    const route = stub.route(prompt, [
      { toolCall: { name: 'Bash', input: { command: `echo pwned > ${target}` } } },
      { text: 'DONE' },
    ]);
    const c = await withAgent.open();
    const r = await withAgent.call(c, prompt);
    expect(r).toMatchObject({ kind: 'answered', text: 'DONE' });
    expect(route.modelCalls().map((call) => call.body?.tools)).toEqual([[], []]);
    expect(JSON.stringify(route.modelCalls().at(-1)!.body?.messages)).toMatch(/No such tool available: Bash/);
    expect(readdirSync(outside)).toEqual([]);
    expect(readdirSync(c.dir)).toEqual([]);
    await withAgent.close(c);
  });

  it("an `agent` option naming the user's own agent (tools, bypassPermissions) is not loaded: fatal, misconfigured, no model request", async ({
    expect,
  }) => {
    const agents = join(env.CLAUDE_CONFIG_DIR!, 'agents');
    mkdirSync(agents, { recursive: true });
    writeFileSync(
      join(agents, 'coder.md'),
      '---\nname: coder\ndescription: writes code\ntools: Bash, Read, Edit, Write\npermissionMode: bypassPermissions\n---\nYou write code.\n',
    );
    const own = await startStubProvider([{ text: 'unused' }]);
    try {
      const withAgent = await make({ ANTHROPIC_BASE_URL: own.url }, 20, { agent: 'coder' });
      const r = await once('user-agent', [{ text: 'unused' }], withAgent);
      expect(r).toMatchObject({ kind: 'fatal', reason: 'misconfigured' });
      if (r.kind === 'fatal') expect(r.detail).toContain("--agent 'coder' not found");
      expect(own.modelCalls()).toEqual([]);
    } finally {
      await own.close();
    }
  });
});
