// llm_config.json as DiscoPoP's own patch repair and its GUI write it (llm_config.py at
// tuda-hpclab/discopop 53a01f2): read, layered as DiscoPoP layers it, and refused where it would
// undo the agent's isolation.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveAgentSettings, type AgentFlags } from '../../src/agent/config.js';
import { loadDescriptor } from '../../src/agent/descriptor.js';
import { optionArgs } from '../../src/agent/isolation.js';
import { UsageError } from '../../src/errors.js';

function configFile(content: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), 'pr-dpcfg-')), 'llm_config.json');
  writeFileSync(file, JSON.stringify(content, null, 4));
  return file;
}

const resolve = (flags: AgentFlags, file: string, env: Record<string, string> = {}) =>
  resolveAgentSettings({ flags, llmConfigPath: file, llmConfigExplicit: true, env });

/** What DiscoPoP's GUI saves: every backend field with its empty default, sorted keys, version 1. */
const discopopWritten = () => ({
  backends: {
    claude: {
      binary: '/opt/claude/bin/claude',
      env: { CLAUDE_CODE_MAX_OUTPUT_TOKENS: '16000' },
      extra_args: ['--max-budget-usd', '3'],
      options: { effort: 'medium' },
    },
    opencode: { binary: 'opencode', env: {}, extra_args: [], options: {} },
  },
  connections: {
    qwen: {
      agent_timeout: 900,
      backend: 'opencode',
      backend_options: { agent: '', attach: '', auto: false, model_variant: 'high' },
      env: {},
      extra_args: [],
      model: 'local/qwen3-coder-30b',
      prompts: 2,
      retries: 3,
    },
    sonnet: {
      backend: 'claude',
      backend_options: { agent: '', append_system_prompt: 'Keep the loop order.', effort: 'high' },
      env: { CLAUDE_CODE_MAX_OUTPUT_TOKENS: '32000', MY_PROXY_TAG: 'lab' },
      extra_args: ['--fallback-model', 'claude-haiku-4-5'],
      model: 'claude-sonnet-4-5',
    },
  },
  version: 1,
});

describe('llm_config.json written by DiscoPoP', () => {
  it('is read: each connection with its shared settings, backend options, extra arguments and environment', async () => {
    const file = configFile(discopopWritten());
    expect(await resolve({ connection: 'qwen' }, file)).toMatchObject({
      connection: 'qwen',
      backend: 'opencode',
      model: 'local/qwen3-coder-30b',
      executable: 'opencode',
      agentTimeoutS: 900,
      prompts: 2,
      retries: 3,
      backendOptions: { model_variant: 'high' },
    });
    const sonnet = await resolve({ connection: 'sonnet' }, file);
    expect(sonnet).toMatchObject({
      backend: 'claude',
      executable: '/opt/claude/bin/claude',
      backendOptions: { effort: 'high', append_system_prompt: 'Keep the loop order.' },
      // The backend section's arguments first, the connection's after them; its variables overridden by the connection's.
      extraArgs: ['--max-budget-usd', '3', '--fallback-model', 'claude-haiku-4-5'],
      env: { CLAUDE_CODE_MAX_OUTPUT_TOKENS: '32000', MY_PROXY_TAG: 'lab' },
    });
    expect(optionArgs(await loadDescriptor('claude'), sonnet.backendOptions!)).toEqual([
      '--effort',
      'high',
      '--append-system-prompt',
      'Keep the loop order.',
    ]);
  });

  it('backend options: backend_options, then the connection top level, then the backend section; "" and false are unset', async () => {
    const config = discopopWritten();
    config.connections.sonnet.backend_options = { agent: '', append_system_prompt: '', effort: '' };
    Object.assign(config.connections.sonnet, { append_system_prompt: 'From the top level.' });
    const settings = await resolve({ connection: 'sonnet' }, configFile(config));
    expect(settings.backendOptions).toEqual({ append_system_prompt: 'From the top level.', effort: 'medium' });
  });

  it('an option the chosen backend does not declare is ignored, as DiscoPoP does', async () => {
    const config = discopopWritten();
    const settings = await resolve({ connection: 'qwen', backend: 'claude' }, configFile(config));
    expect(optionArgs(await loadDescriptor('claude'), settings.backendOptions!)).toEqual(['--effort', 'medium']);
  });

  it('DISCOPOP_CLAUDE replaces the executable and nothing else', async () => {
    const settings = await resolve({ connection: 'sonnet' }, configFile(discopopWritten()), {
      DISCOPOP_CLAUDE: '/elsewhere/claude',
    });
    expect(settings).toMatchObject({
      executable: '/elsewhere/claude',
      extraArgs: ['--max-budget-usd', '3', '--fallback-model', 'claude-haiku-4-5'],
    });
  });

  it('executable and binary naming different programs is an error; naming the same one is not', async () => {
    const config = discopopWritten();
    Object.assign(config.backends.claude, { executable: '/usr/bin/claude' });
    const file = configFile(config);
    await expect(resolve({ connection: 'sonnet' }, file)).rejects.toThrow(
      `${file}: backends.claude: executable '/usr/bin/claude' and binary '/opt/claude/bin/claude' name different programs; keep one`,
    );
    Object.assign(config.backends.claude, { executable: '/opt/claude/bin/claude' });
    expect(await resolve({ connection: 'sonnet' }, configFile(config))).toMatchObject({
      executable: '/opt/claude/bin/claude',
    });
  });

  it("reads a connection's DiscoPoP timeout as the per-call timeout, and accepts its name and description", async () => {
    const config = discopopWritten();
    Object.assign(config.connections.sonnet, {
      timeout: 600,
      name: 'Sonnet, high effort',
      description: 'the lab default',
    });
    const warnings: string[] = [];
    const settings = await resolveAgentSettings({
      flags: { connection: 'sonnet' },
      llmConfigPath: configFile(config),
      llmConfigExplicit: true,
      env: {},
      warn: (m) => warnings.push(m),
    });
    expect(settings.agentTimeoutS).toBe(600);
    expect(warnings).toEqual([]);
    // --agent-timeout still wins over both.
    expect((await resolve({ connection: 'sonnet', agentTimeoutS: 45 }, configFile(config))).agentTimeoutS).toBe(45);
  });

  it("prefers agent_timeout over DiscoPoP's timeout when both are set, with a warning naming the connection", async () => {
    const config = discopopWritten();
    Object.assign(config.connections.qwen, { timeout: 600 });
    const file = configFile(config);
    const warnings: string[] = [];
    const settings = await resolveAgentSettings({
      flags: { connection: 'qwen' },
      llmConfigPath: file,
      llmConfigExplicit: true,
      env: {},
      warn: (m) => warnings.push(m),
    });
    expect(settings.agentTimeoutS).toBe(900);
    expect(warnings).toEqual([
      `${file}: connections.qwen: agent_timeout 900 s and DiscoPoP's timeout 600 s are both set; agent_timeout is used`,
    ]);
  });

  it("a DiscoPoP timeout of 0 or null is unset, as there: the backend's or the default timeout applies", async () => {
    for (const timeout of [0, null]) {
      const config = discopopWritten();
      Object.assign(config.connections.sonnet, { timeout });
      expect((await resolve({ connection: 'sonnet' }, configFile(config))).agentTimeoutS).toBe(300);
    }
  });

  it('any other unknown key is still an error naming the file and the key', async () => {
    const config = discopopWritten();
    Object.assign(config.connections.sonnet.backend_options, { temperature: 0.2 });
    Object.assign(config.backends.opencode, { path: '/x' });
    const file = configFile(config);
    const error = await resolve({ connection: 'sonnet' }, file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain(`${file}: connections.sonnet.backend_options.temperature: unknown key`);
    expect((error as Error).message).toContain(`${file}: backends.opencode.path: unknown key`);
  });
});

describe('what would undo the isolation is refused, naming the key', () => {
  const refusal = async (
    change: (config: ReturnType<typeof discopopWritten>) => void,
    connection: string,
    key: string,
  ) => {
    const config = discopopWritten();
    change(config);
    const file = configFile(config);
    const error = await resolve({ connection }, file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ${key}: .*refused: it would give the agent tools, permissions, the project or another conversation`,
      ),
    );
  };

  it("opencode's auto, attach and agent", async () => {
    await refusal(
      (c) => void (c.connections.qwen.backend_options.auto = true),
      'qwen',
      'connections\\.qwen\\.backend_options\\.auto',
    );
    await refusal(
      (c) => void (c.connections.qwen.backend_options.attach = 'http://localhost:4096'),
      'qwen',
      'connections\\.qwen\\.backend_options\\.attach',
    );
    await refusal(
      (c) => Object.assign(c.backends.opencode.options, { agent: 'build' }),
      'qwen',
      'backends\\.opencode\\.options\\.agent',
    );
    await refusal((c) => Object.assign(c.connections.qwen, { auto: true }), 'qwen', 'connections\\.qwen\\.auto');
  });

  it("claude's permission-skipping and tool-granting arguments, in either spelling", async () => {
    await refusal(
      (c) => c.connections.sonnet.extra_args.push('--dangerously-skip-permissions'),
      'sonnet',
      'connections\\.sonnet\\.extra_args',
    );
    await refusal(
      (c) => c.connections.sonnet.extra_args.push('--permission-mode=bypassPermissions'),
      'sonnet',
      'connections\\.sonnet\\.extra_args',
    );
    await refusal(
      (c) => c.backends.claude.extra_args.push('--allowedTools', 'Bash'),
      'sonnet',
      'backends\\.claude\\.extra_args',
    );
    await refusal(
      (c) => c.connections.sonnet.extra_args.push('--add-dir', '/home/me/project'),
      'sonnet',
      'connections\\.sonnet\\.extra_args',
    );
  });

  it('a refused short flag with its value attached, or grouped with other short flags', async () => {
    await refusal(
      (c) => c.connections.sonnet.extra_args.push('-rSESSION'),
      'sonnet',
      'connections\\.sonnet\\.extra_args',
    );
    await refusal(
      (c) => (c.connections.qwen.extra_args as string[]).push('-ic'),
      'qwen',
      'connections\\.qwen\\.extra_args',
    );
  });

  it("an environment variable that replaces the descriptor's own settings or opencode's configuration", async () => {
    await refusal(
      (c) => Object.assign(c.connections.qwen.env, { OPENCODE_CONFIG_CONTENT: '{"permission":{"*":"allow"}}' }),
      'qwen',
      'connections\\.qwen\\.env\\.OPENCODE_CONFIG_CONTENT',
    );
    await refusal(
      (c) => Object.assign(c.backends.opencode.env, { OPENCODE_PERMISSION: '{"*":"allow"}' }),
      'qwen',
      'backends\\.opencode\\.env\\.OPENCODE_PERMISSION',
    );
    await refusal(
      (c) => Object.assign(c.connections.sonnet.env, { CLAUDE_CODE_DISABLE_CLAUDE_MDS: '0' }),
      'sonnet',
      'connections\\.sonnet\\.env\\.CLAUDE_CODE_DISABLE_CLAUDE_MDS',
    );
  });

  it("opencode's permission skipping, in either spelling, and --server, which attaches to another opencode", async () => {
    for (const args of [
      ['--dangerously-skip-permissions'],
      ['--dangerouslySkipPermissions'],
      ['--server', 'http://localhost:4096'],
      ['--server=http://localhost:4096'],
    ]) {
      await refusal(
        (c) => (c.connections.qwen.extra_args as string[]).push(...args),
        'qwen',
        'connections\\.qwen\\.extra_args',
      );
    }
    await refusal(
      (c) => (c.backends.opencode.extra_args as string[]).push('--dangerously-skip-permissions'),
      'qwen',
      'backends\\.opencode\\.extra_args',
    );
  });

  it("an environment that chooses the agent's configuration, and with it its permissions: HOME, XDG_CONFIG_HOME, CLAUDE_CONFIG_DIR", async () => {
    for (const name of ['HOME', 'XDG_CONFIG_HOME']) {
      await refusal(
        (c) => Object.assign(c.connections.qwen.env, { [name]: '/home/me' }),
        'qwen',
        `connections\\.qwen\\.env\\.${name}`,
      );
      await refusal(
        (c) => Object.assign(c.connections.sonnet.env, { [name]: '/home/me' }),
        'sonnet',
        `connections\\.sonnet\\.env\\.${name}`,
      );
    }
    await refusal(
      (c) => Object.assign(c.connections.sonnet.env, { CLAUDE_CONFIG_DIR: '/home/me/.claude' }),
      'sonnet',
      'connections\\.sonnet\\.env\\.CLAUDE_CONFIG_DIR',
    );
    await refusal(
      (c) => Object.assign(c.backends.claude.env, { CLAUDE_CONFIG_DIR: '/home/me/.claude' }),
      'sonnet',
      'backends\\.claude\\.env\\.CLAUDE_CONFIG_DIR',
    );
  });

  it("a short flag with its value attached is that flag alone: opencode's -mopenai/gpt-5 passes, -s with a session id does not", async () => {
    const config = discopopWritten();
    (config.connections.qwen.extra_args as string[]).push('-mopenai/gpt-5');
    (config.connections.sonnet.extra_args as string[]).push('-nnightly-run');
    const file = configFile(config);
    expect((await resolve({ connection: 'qwen' }, file)).extraArgs).toEqual(['-mopenai/gpt-5']);
    expect((await resolve({ connection: 'sonnet' }, file)).extraArgs).toContain('-nnightly-run');
    await refusal(
      (c) => (c.connections.qwen.extra_args as string[]).push('-sses_123'),
      'qwen',
      'connections\\.qwen\\.extra_args',
    );
  });
});
