// The scripted agent the pipeline tests use behaves like the real CLIs behind the same descriptor
// interface: sessions continue, no-answer and fatal outcomes classify the same way, and a hanging
// call is killed at the agent timeout.
import { mkdtempSync, readdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createScriptedAgent } from '../helpers/scripted-agent.js';

const scratch = () => mkdtempSync(join(tmpdir(), 'pr-scripted-'));

describe('scripted agent (descriptor over a canned-reply script)', () => {
  it('answers in order, continues the session, and repeats the last reply', async () => {
    const agent = await createScriptedAgent({ scratchDir: scratch(), replies: ['first', 'second'] });
    const c0 = await agent.open();
    expect(readdirSync(c0.dir)).toEqual([]);
    const r1 = await agent.call(c0, 'fix this patch');
    expect(r1).toMatchObject({
      kind: 'answered',
      text: 'first',
      usage: { reachedModel: true, cliVersion: '1.0.0 (scripted agent)' },
    });
    if (r1.kind !== 'answered') return;
    expect(r1.conversation.sessionId).toBe('scripted-1');
    const r2 = await agent.call(r1.conversation, 'hunk 1 failed');
    const r3 = await agent.call(r1.conversation, 'hunk 1 failed again');
    expect(r2).toMatchObject({ kind: 'answered', text: 'second' });
    expect(r3).toMatchObject({ kind: 'answered', text: 'second' });
    const calls = await agent.calls();
    expect(calls.map((c) => c.resumed)).toEqual([null, 'scripted-1', 'scripted-1']);
    expect(calls[0]!.prompt).toContain('You repair OpenMP patches.');
    expect(calls[0]!.prompt).toContain('fix this patch');
    expect(calls[1]!.prompt).toBe('hunk 1 failed');
    expect(new Set(calls.map((c) => c.cwd))).toEqual(new Set([c0.dir]));
    await agent.close(c0);
    expect(existsSync(c0.dir)).toBe(false);
  });

  it('reports every no-answer and fatal reason as the real CLIs would be classified', async () => {
    const agent = await createScriptedAgent({
      scratchDir: scratch(),
      replies: [
        { noAnswer: 'unreachable' },
        { noAnswer: 'server-error' },
        { noAnswer: 'rate-limited' },
        { noAnswer: 'timeout' },
        { noAnswer: 'crashed' },
        { fatal: 'auth', exitCode: 0 },
        { fatal: 'quota' },
        { fatal: 'misconfigured' },
      ],
    });
    const c = await agent.open();
    const kinds: string[] = [];
    for (let i = 0; i < 8; i++) {
      const r = await agent.call(c, 'p');
      kinds.push(r.kind === 'answered' ? 'answered' : `${r.kind}:${r.reason}`);
    }
    expect(kinds).toEqual([
      'no-answer:unreachable',
      'no-answer:server-error',
      'no-answer:rate-limited',
      'no-answer:timeout',
      'no-answer:crashed',
      'fatal:auth',
      'fatal:quota',
      'fatal:misconfigured',
    ]);
  });

  it('without sessions, a follow-up replays the earlier turns in one fresh call', async () => {
    const agent = await createScriptedAgent({
      scratchDir: scratch(),
      replies: ['patch v1', 'patch v2'],
      sessions: false,
    });
    const r1 = await agent.call(await agent.open(), 'the request');
    if (r1.kind !== 'answered') throw new Error(`unexpected ${r1.kind}`);
    const r2 = await agent.call(r1.conversation, 'v1 did not apply');
    expect(r2).toMatchObject({ kind: 'answered', text: 'patch v2' });
    const second = (await agent.calls())[1]!;
    expect(second.resumed).toBeNull();
    expect(second.prompt).toMatch(/the request[\s\S]*patch v1[\s\S]*v1 did not apply/);
  });

  it('a hanging CLI is killed at the agent timeout and counts as no answer', async () => {
    const agent = await createScriptedAgent({ scratchDir: scratch(), replies: [{ hang: true }], agentTimeoutS: 1 });
    const r = await agent.call(await agent.open(), 'p');
    expect(r).toMatchObject({ kind: 'no-answer', reason: 'timeout' });
  });
});
