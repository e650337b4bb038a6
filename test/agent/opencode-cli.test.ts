// The real opencode CLI (pinned, from .cache/agents) against the loopback stub, configured the
// way a user with a local OpenAI-compatible server would: a provider in their own opencode.json,
// merged with the agent definition patch-repair passes in OPENCODE_CONFIG_CONTENT.
// The tests run at the same time, as a run's parallel repairs call the agent, in one HOME and
// against one stub, which tells their calls apart by prompt.
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Agent, CallResult } from '../../src/agent/types.js';
import { startStubProvider, type StubBehaviour, type StubProvider } from '../stub/stub-provider.js';
import {
  answerCall,
  callOnce,
  createOpencodeDatabase,
  isolatedHome,
  realAgent,
  recordedCall,
  requireAgentCli,
  writeOpencodeUserConfig,
} from './real-cli.js';

const opencode = await requireAgentCli('opencode');

type Message = { role: string; content: unknown };

// Generous: on a loaded 2-core machine one opencode call has taken 30 s, and the tests' calls run
// side by side; alone and unloaded, one takes 5-7 s.
const CALL_TIMEOUT_S = 90;

describe.skipIf(opencode === null).concurrent('opencode CLI against the loopback stub', () => {
  let stub: StubProvider;
  let agent: Agent;
  let short: Agent;
  let closed: Agent;
  let home: ReturnType<typeof isolatedHome>;
  let scratch: string;

  beforeAll(async () => {
    stub = await startStubProvider();
    scratch = mkdtempSync(join(tmpdir(), 'pr-opencode-'));
    const make = async (env: Record<string, string>, agentTimeoutS: number) =>
      realAgent({
        backend: 'opencode',
        executable: opencode!,
        model: 'stub/stub-model',
        env,
        agentTimeoutS,
        scratchDir: scratch,
      });
    home = isolatedHome();
    writeOpencodeUserConfig(home.home, stub.url);
    await createOpencodeDatabase(home.env);
    agent = await make(home.env, CALL_TIMEOUT_S);
    short = await make(home.env, 15);
    const closedHome = isolatedHome();
    writeOpencodeUserConfig(closedHome.home, 'http://127.0.0.1:9');
    closed = await make(closedHome.env, 300);
  });
  afterAll(async () => {
    await stub?.close();
  });

  const once = (fixture: string, behaviours: StubBehaviour[], a: Agent = agent): Promise<CallResult> =>
    callOnce(stub, a, fixture, behaviours);

  // First, so that the slowest call (opencode makes 6 attempts over about 75 s against a closed
  // port and has no switch to make fewer) starts before the others and overlaps them all.
  it('a closed port is unreachable', async ({ expect }) => {
    expect(await once('closed-port', [{ text: 'unused' }], closed)).toMatchObject({
      kind: 'no-answer',
      reason: 'unreachable',
    });
  }, 320_000);

  it(
    'continues a conversation by forking the last answered turn; a failed fork leaves no trace',
    async ({ expect }) => {
      stub.route('turn one', [{ text: 'FIRST' }]);
      stub.route('turn two', [{ status: 401 }]);
      const again = stub.route('turn two again', [{ text: 'SECOND' }]);
      const c = await agent.open();
      const r1 = await agent.call(c, 'turn one');
      if (r1.kind !== 'answered') throw new Error(`turn 1: ${JSON.stringify(r1)}`);
      const failed = await recordedCall(agent, r1.conversation, 'turn two', 'auth-401');
      // opencode exits 1 here; the error line, not the exit code, makes it fatal.
      expect(failed).toMatchObject({ kind: 'fatal', reason: 'auth' });
      const r2 = await agent.call(r1.conversation, 'turn two again');
      expect(r2).toMatchObject({ kind: 'answered', text: 'SECOND' });
      if (r2.kind !== 'answered') return;
      expect(r2.conversation.sessionId).not.toBe(r1.conversation.sessionId);
      const last = again.modelCalls().at(-1)!;
      const messages = last.body?.messages as Message[];
      expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
      expect(JSON.stringify(messages[1])).toContain('turn one');
      expect(JSON.stringify(messages[2])).toContain('FIRST');
      expect(JSON.stringify(messages[3])).toContain('turn two again');
      await agent.close(c);
    },
    (3 * CALL_TIMEOUT_S + 30) * 1000,
  );

  // opencode retries these itself for over a minute with no switch to lower the count
  // (agents.md §2.5); the agent timeout is what ends them. The error it logged while retrying
  // names the cause when there was one.
  // (A stalled stream behaves like the hang; the claude tests and the recorded fixture cover it.)
  it('a dropped connection and a hang end at the agent timeout as no answer', async ({ expect }) => {
    // A drop is "unreachable" once opencode has logged a failed attempt; on a loaded machine its
    // start-up alone can use up the timeout, and then it is a plain timeout.
    const expected = { 'dropped-connection': ['unreachable', 'timeout'], hang: ['timeout'] };
    const cases = [
      ['dropped-connection', { drop: true }],
      ['hang', { hang: true }],
    ] as const;
    const results = await Promise.all(cases.map(([name, behaviour]) => once(name, [behaviour], short)));
    cases.forEach(([name], i) => {
      const r = results[i]!;
      expect(r.kind, name).toBe('no-answer');
      expect(expected[name], name).toContain(r.kind !== 'answered' && r.reason);
    });
  });

  it('answers with the model text, with our system prompt and no tools', async ({ expect }) => {
    const { prompt, conversation: c, result: r, requests } = await answerCall(stub, agent);
    expect(r).toMatchObject({ kind: 'answered', text: 'STUB ANSWER 1' });
    if (r.kind !== 'answered') return;
    expect(r.usage).toMatchObject({ reachedModel: true, inputTokens: 10, outputTokens: 5, cliVersion: '1.18.33' });
    // opencode prices a custom provider's tokens at 0: unknown, so no cost is recorded.
    expect(r.usage.costUsd).toBeUndefined();
    expect(r.conversation.sessionId).toMatch(/^ses_/);
    expect(requests).toHaveLength(1);
    const body = requests[0]!.body!;
    expect(body.tools).toBeUndefined();
    expect(body.model).toBe('stub-model');
    const messages = body.messages as Message[];
    expect(String(messages[0]!.content)).toContain('You repair OpenMP patches.');
    expect(messages.at(-1)!.content).toBe(prompt);
    expect(readdirSync(c.dir)).toEqual([]);
    await agent.close(c);
    expect(existsSync(c.dir)).toBe(false);
  });

  it.for([
    ['rate-limited-429', [{ status: 429 }], 'no-answer', 'rate-limited'],
    ['server-error-500', [{ status: 500 }], 'no-answer', 'server-error'],
    ['quota-402', [{ status: 402 }], 'fatal', 'quota'],
  ] as const)('classifies %s', async ([name, behaviours, kind, reason], { expect }) => {
    const r = await once(name, [...behaviours]);
    expect(r).toMatchObject({ kind, reason });
    expect(r.usage.reachedModel).toBe(false);
  });

  it.for([
    ['write-tool', (target: string) => ({ name: 'write', input: { filePath: target, content: 'pwned' } })],
    ['shell-tool', (target: string) => ({ name: 'bash', input: { command: `touch ${target}`, description: 'touch' } })],
  ] as const)(
    'a model asking for the %s gets no tool: nothing is written anywhere',
    async ([name, toolCall], { expect }) => {
      const outside = mkdtempSync(join(tmpdir(), 'pr-opencode-target-'));
      const target = join(outside, 'written-by-agent');
      const prompt = `Write the file (${name}).`;
      const route = stub.route(prompt, [{ toolCall: toolCall(target) }, { text: 'DONE' }]);
      const c = await agent.open();
      const r = await recordedCall(agent, c, prompt, name);
      expect(['answered', 'no-answer']).toContain(r.kind);
      if (r.kind === 'answered') {
        // opencode answered the tool call itself, with an error, instead of running it.
        expect(JSON.stringify(route.modelCalls().at(-1)!.body?.messages)).toContain('unavailable tool');
      }
      expect(existsSync(target)).toBe(false);
      expect(readdirSync(outside)).toEqual([]);
      expect(readdirSync(c.dir)).toEqual([]);
      await agent.close(c);
    },
  );

  // opencode prints its usage text, and no error message, for any argument it cannot read: a flag
  // it does not know, or a short flag with its value attached, which its parser takes for more flags.
  it('an argument opencode cannot read is fatal, misconfigured, not a crash the run retries', async ({ expect }) => {
    const results = await Promise.all(
      [['--no-such-flag'], ['-mstub/stub-model']].map(async (extraArgs) => {
        const withArgs = await realAgent({
          backend: 'opencode',
          executable: opencode!,
          model: 'stub/stub-model',
          env: home.env,
          agentTimeoutS: CALL_TIMEOUT_S,
          scratchDir: scratch,
          extraArgs,
        });
        return once(`bad-argument ${extraArgs[0]}`, [{ text: 'unused' }], withArgs);
      }),
    );
    for (const r of results) expect(r).toMatchObject({ kind: 'fatal', reason: 'misconfigured' });
  });

  // A user's first run with --agent-jobs 4 on a machine where opencode never ran: four first calls
  // at once in a HOME without opencode's database, which two first starts at once race to create.
  it(
    'in a fresh HOME, answers four concurrent first calls: the agent creates the database once before they start',
    async ({ expect }) => {
      const own = await startStubProvider();
      try {
        const home = isolatedHome();
        writeOpencodeUserConfig(home.home, own.url);
        const fresh = await realAgent({
          backend: 'opencode',
          executable: opencode!,
          model: 'stub/stub-model',
          env: home.env,
          agentTimeoutS: CALL_TIMEOUT_S,
          scratchDir: mkdtempSync(join(tmpdir(), 'pr-opencode-fresh-')),
        });
        expect(existsSync(join(home.home, '.local', 'share', 'opencode', 'opencode.db'))).toBe(false);
        const names = ['first-a', 'first-b', 'first-c', 'first-d'];
        const results = await Promise.all(
          names.map((name) => callOnce(own, fresh, name, [{ text: `ANSWER ${name}` }])),
        );
        expect(results.map((r) => (r.kind === 'answered' ? r.text : `${r.kind}: ${r.reason} ${r.detail}`))).toEqual(
          names.map((name) => `ANSWER ${name}`),
        );
      } finally {
        await own.close();
      }
    },
    (2 * CALL_TIMEOUT_S + 30) * 1000,
  );
});
