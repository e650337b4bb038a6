// Which agent a run gets: detection only when an agent is needed, the only installed CLI named
// before use, no guess between several, the built-in repairer alone (and said) when none is
// installed, and a named agent that cannot start refused with exit 4.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../../src/agent/create.js';
import { AgentUnavailableError, UsageError } from '../../src/errors.js';
import type { AgentSettings } from '../../src/formats/run-options.js';

const BASE: AgentSettings = { agentTimeoutS: 20, prompts: 2, retries: 2, maxAttempts: 6, agentErrorRetries: 2 };
const temp = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

function executable(dir: string, name: string, script: string, shebang = '#!/bin/sh'): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, name);
  writeFileSync(file, `${shebang}\n${script}\n`);
  chmodSync(file, 0o755);
  return file;
}

describe('createAgent: detection only when an agent is needed', () => {
  it('builtin means no agent and nothing to say', async () => {
    expect(
      await createAgent({ settings: { ...BASE, backend: 'builtin' }, scratchDir: temp('pr-ca-'), systemPrompt: 's' }),
    ).toEqual({ agent: null, notice: null });
  });

  it('uses the only agent CLI on PATH and names it', async () => {
    const bin = temp('pr-bin-');
    const claude = executable(bin, 'claude', 'exit 0');
    const { agent, notice } = await createAgent({
      settings: BASE,
      scratchDir: temp('pr-ca-'),
      systemPrompt: 's',
      searchPath: bin,
    });
    expect(agent?.backend).toBe('claude');
    expect(notice).toBe(`using claude (${claude}), the only agent CLI found on PATH`);
  });

  it('refuses to guess between several installed CLIs', async () => {
    const bin = temp('pr-bin-');
    executable(bin, 'claude', 'exit 0');
    executable(join(bin, 'other'), 'opencode', 'exit 0');
    const run = createAgent({
      settings: BASE,
      scratchDir: temp('pr-ca-'),
      systemPrompt: 's',
      searchPath: [bin, join(bin, 'other')].join(delimiter),
    });
    await expect(run).rejects.toThrow(UsageError);
    await expect(run).rejects.toThrow(
      /several agent CLIs found on PATH: claude \(.*\), opencode \(.*\); choose one with --backend/,
    );
  });

  it('with none installed the built-in repairer runs alone, and says so', async () => {
    const { agent, notice } = await createAgent({
      settings: BASE,
      scratchDir: temp('pr-ca-'),
      systemPrompt: 's',
      searchPath: temp('pr-empty-'),
    });
    expect(agent).toBeNull();
    expect(notice).toMatch(
      /^no agent CLI found on PATH \(looked for claude, opencode\); the built-in repairer runs alone$/,
    );
  });

  it('an unknown backend name lists the known ones', async () => {
    await expect(
      createAgent({ settings: { ...BASE, backend: 'gpt' }, scratchDir: temp('pr-ca-'), systemPrompt: 's' }),
    ).rejects.toThrow(
      /--backend gpt: unknown backend \(known: claude, opencode, builtin; or give a descriptor file path\)/,
    );
  });

  it('a named agent whose executable is missing is refused when the agent is made, with exit 4', async () => {
    const made = createAgent({
      settings: { ...BASE, backend: 'claude', executable: '/nonexistent/claude' },
      scratchDir: temp('pr-ca-'),
      systemPrompt: 's',
    });
    await expect(made).rejects.toThrow(AgentUnavailableError);
    await expect(made).rejects.toThrow(
      '--backend claude: cannot start /nonexistent/claude: no such executable; install it',
    );
    const notOnPath = createAgent({
      settings: { ...BASE, backend: 'claude' },
      scratchDir: temp('pr-ca-'),
      systemPrompt: 's',
      searchPath: temp('pr-empty-'),
    });
    await expect(notOnPath).rejects.toThrow('--backend claude: cannot start claude: no such executable on PATH');
  });

  it('with --no-builtin, finding no agent CLI is a refusal, not a notice', async () => {
    const made = createAgent({
      settings: BASE,
      scratchDir: temp('pr-ca-'),
      systemPrompt: 's',
      searchPath: temp('pr-empty-'),
      required: true,
    });
    await expect(made).rejects.toThrow(
      /^--no-builtin leaves every repair to an agent, and no agent CLI is on PATH \(looked for claude, opencode\)/,
    );
  });

  it('an executable that cannot be started (its interpreter is missing) is a fatal misconfiguration that made no call', async () => {
    const bin = temp('pr-bin-');
    executable(bin, 'claude', 'true', '#!/nonexistent/interpreter');
    const { agent } = await createAgent({
      settings: { ...BASE, backend: 'claude', executable: join(bin, 'claude') },
      scratchDir: temp('pr-ca-'),
      systemPrompt: 's',
    });
    const r = await agent!.call(await agent!.open(), 'p');
    expect(r).toMatchObject({ kind: 'fatal', reason: 'misconfigured', started: false });
  });
});

describe('the minimal descriptor works as is', () => {
  const minimal = { name: 'my-agent', command: ['my-agent', '--model', '{model}'], prompt: 'stdin' };

  async function setup(script: string, model: string | null = 'tiny-1') {
    const dir = temp('pr-minimal-');
    const bin = join(dir, 'bin');
    executable(bin, 'my-agent', script);
    const file = join(dir, 'my-agent.json');
    writeFileSync(file, JSON.stringify(minimal));
    const settings: AgentSettings = { ...BASE, backend: file, ...(model ? { model } : {}) };
    return createAgent({
      settings,
      scratchDir: join(dir, 'scratch'),
      systemPrompt: 'SYSTEM',
      env: { PATH: `${bin}${delimiter}${process.env.PATH}` },
    });
  }

  it('answers with stdout; follow-ups replay the conversation in one fresh call', async () => {
    const { agent } = await setup('printf "model=%s\\n" "$2"; cat');
    const c = await agent!.open();
    const r1 = await agent!.call(c, 'first request');
    expect(r1).toMatchObject({ kind: 'answered', text: 'model=tiny-1\nSYSTEM\n\nfirst request' });
    if (r1.kind !== 'answered') return;
    expect(r1.conversation.sessionId).toBeUndefined();
    const r2 = await agent!.call(r1.conversation, 'it did not apply');
    expect(r2.kind).toBe('answered');
    if (r2.kind !== 'answered') return;
    expect(r2.text).toMatch(/^model=tiny-1\nSYSTEM\n\nThis continues an earlier exchange/);
    expect(r2.text).toMatch(/first request[\s\S]*model=tiny-1[\s\S]*it did not apply$/);
  });

  it('a failing exit is no answer, classified from stderr', async () => {
    const { agent } = await setup('echo "HTTP 503 Service Unavailable" >&2; exit 1');
    expect(await agent!.call(await agent!.open(), 'p')).toMatchObject({ kind: 'no-answer', reason: 'server-error' });
  });

  it('an unfilled {model} is a usage error naming the flag', async () => {
    await expect(setup('cat', null)).rejects.toThrow(
      /backend my-agent: its command needs \{model\}, which has no value: give --model/,
    );
  });
});

describe('the worked example of docs/backends.md', () => {
  // The descriptor exactly as the documentation shows it, over a fake acme-code.
  const acme = {
    name: 'acme',
    command: ['acme-code', 'ask', '--json', ['--model', '{model}'], '--no-tools', '--system', '{system_prompt}'],
    followUp: ['--continue-from', '{session_id}'],
    prompt: 'stdin',
    output: {
      format: 'json',
      text: { path: 'reply' },
      sessionId: { path: 'conversation' },
      answered: { is: { ok: true } },
      error: { where: { ok: false }, message: 'error.text', status: 'error.http' },
      usage: { inputTokens: 'tokens.in', outputTokens: 'tokens.out' },
    },
    exitCodes: { '3': 'misconfigured' },
    env: { ACME_NO_UPDATE_CHECK: '1' },
    defaults: { agent_timeout: 600 },
  };
  const script = [
    'prompt=$(cat)',
    'case "$prompt" in',
    '  *slow*) echo \'{"ok": false, "error": {"http": 429, "text": "slow down"}}\'; exit 1 ;;',
    '  *badflag*) echo "unrecognised flag" >&2; exit 3 ;;',
    'esac',
    'from=none; while [ $# -gt 0 ]; do [ "$1" = --continue-from ] && from=$2; shift; done',
    'echo "{\\"ok\\": true, \\"reply\\": \\"from $from, env $ACME_NO_UPDATE_CHECK\\", \\"conversation\\": \\"c-42\\", \\"tokens\\": {\\"in\\": 900, \\"out\\": 120}}"',
  ].join('\n');

  it('answers, continues from the session, and classifies a 429 and a bad-flag exit', async () => {
    const dir = temp('pr-acme-');
    executable(join(dir, 'bin'), 'acme-code', script);
    writeFileSync(join(dir, 'acme.json'), JSON.stringify(acme));
    const { agent } = await createAgent({
      settings: { ...BASE, backend: join(dir, 'acme.json'), model: 'm1' },
      scratchDir: join(dir, 'scratch'),
      systemPrompt: 's',
      env: { PATH: `${join(dir, 'bin')}${delimiter}${process.env.PATH}` },
    });
    const r1 = await agent!.call(await agent!.open(), 'fix');
    expect(r1).toMatchObject({
      kind: 'answered',
      text: 'from none, env 1',
      usage: { inputTokens: 900, outputTokens: 120 },
    });
    if (r1.kind !== 'answered') return;
    expect(await agent!.call(r1.conversation, 'again')).toMatchObject({ kind: 'answered', text: 'from c-42, env 1' });
    expect(await agent!.call(r1.conversation, 'slow')).toMatchObject({
      kind: 'no-answer',
      reason: 'rate-limited',
      detail: 'slow down (HTTP 429)',
    });
    expect(await agent!.call(r1.conversation, 'badflag')).toMatchObject({ kind: 'fatal', reason: 'misconfigured' });
  });
});

describe('prompt passing and cancellation', () => {
  async function agentWith(descriptor: object, script: string) {
    const dir = temp('pr-passing-');
    executable(join(dir, 'bin'), 'echo-agent', script);
    writeFileSync(join(dir, 'd.json'), JSON.stringify({ name: 'echo-agent', ...descriptor }));
    const { agent } = await createAgent({
      settings: { ...BASE, backend: join(dir, 'd.json') },
      scratchDir: join(dir, 'scratch'),
      systemPrompt: 'SYS',
      env: { PATH: `${join(dir, 'bin')}${delimiter}${process.env.PATH}` },
    });
    return { agent: agent!, scratch: join(dir, 'scratch') };
  }

  it('as one argument, placed where {prompt} is', async () => {
    const { agent } = await agentWith(
      { command: ['echo-agent', '--ask', '{prompt}', '--end'], prompt: 'argument' },
      'printf "%s|" "$@"',
    );
    expect(await agent.call(await agent.open(), 'two words')).toMatchObject({
      kind: 'answered',
      text: '--ask|SYS\n\ntwo words|--end|',
    });
  });

  it('as a file outside the agent directory, appended last; close removes it', async () => {
    const { agent, scratch } = await agentWith(
      { command: ['echo-agent'], prompt: 'file' },
      'for f; do :; done; printf "%s:" "$f"; cat "$f"',
    );
    const c = await agent.open();
    const r = await agent.call(c, 'from a file');
    if (r.kind !== 'answered') throw new Error(JSON.stringify(r));
    const [file, text] = r.text.split(':');
    expect(text).toBe('SYS\n\nfrom a file');
    expect(file!.startsWith(`${c.dir}/`)).toBe(false);
    expect(existsSync(file!)).toBe(true);
    await agent.close(c);
    expect(existsSync(file!)).toBe(false);
    expect(readdirSync(scratch)).toEqual([]);
  });

  it('an aborted call ends at once as no answer', async () => {
    // The agent would sleep far past the test's own timeout: only the abort can end this call.
    const { agent } = await agentWith({ command: ['echo-agent'] }, 'sleep 600');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const r = await agent.call(await agent.open(), 'p', controller.signal);
    expect(r).toMatchObject({ kind: 'no-answer', reason: 'crashed', detail: 'canceled before the agent answered' });
  });
});

describe("a descriptor's prepare step (opencode creates its database on its first start)", () => {
  it('runs once before the first calls, which all wait for it, and not at all once its data file exists', async () => {
    const home = temp('pr-prepare-home-');
    const log = join(home, 'prepare.log');
    // The CLI's first start creates its state slowly; a call that starts before it is there fails.
    const cli = executable(
      temp('pr-prepare-bin-'),
      'tool',
      [
        'if [ "$1" = init ]; then echo init >> "$PREPARE_LOG"; sleep 0.3; mkdir -p "$XDG_DATA_HOME/tool"; touch "$XDG_DATA_HOME/tool/state.db"; exit 0; fi',
        '[ -f "$XDG_DATA_HOME/tool/state.db" ] || { echo "Failed query: CREATE TABLE" >&2; exit 1; }',
        'echo answer',
      ].join('\n'),
    );
    const descriptor = join(home, 'tool.json');
    writeFileSync(
      descriptor,
      JSON.stringify({ name: 'tool', command: [cli], prepare: { args: ['init'], unlessDataFile: 'tool/state.db' } }),
    );
    const env = { PREPARE_LOG: log, HOME: home, XDG_DATA_HOME: join(home, 'data') };
    const make = async () =>
      (
        await createAgent({
          settings: { ...BASE, backend: descriptor },
          scratchDir: temp('pr-prepare-'),
          systemPrompt: 's',
          env,
        })
      ).agent!;
    const agent = await make();
    const results = await Promise.all([1, 2, 3, 4].map(async () => agent.call(await agent.open(), 'p')));
    expect(results.map((r) => r.kind === 'answered' && r.text.trim())).toEqual([
      'answer',
      'answer',
      'answer',
      'answer',
    ]);
    const again = await make();
    expect(await again.call(await again.open(), 'p')).toMatchObject({ kind: 'answered' });
    expect(readFileSync(log, 'utf8')).toBe('init\n');
  });
});
