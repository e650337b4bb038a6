// llm_config.json and the agent flags resolve to one setting per key, most specific first (flag,
// connection, backend entry, descriptor, built-in default), and every bad key or value is one line
// naming the file and the key.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveAgentSettings, type AgentFlags } from '../../src/agent/config.js';
import { AGENT_DEFAULTS } from '../../src/formats/run-options.js';
import { UsageError } from '../../src/errors.js';

function configFile(content: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), 'pr-llmcfg-')), 'llm_config.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

const resolve = (flags: AgentFlags, llmConfigPath: string, llmConfigExplicit = true) =>
  resolveAgentSettings({ flags, llmConfigPath, llmConfigExplicit });

describe('resolveAgentSettings', () => {
  it('with no configuration file and no flags: built-in defaults, backend left to detection', async () => {
    const settings = await resolve({}, '/nonexistent/llm_config.json', false);
    expect(settings).toEqual({ ...AGENT_DEFAULTS });
  });

  it('an explicitly named configuration file must exist', async () => {
    await expect(resolve({}, '/nonexistent/llm_config.json')).rejects.toThrow(
      '/nonexistent/llm_config.json: cannot read the LLM configuration: does not exist',
    );
  });

  it('flag → connection → backend entry → built-in defaults, most specific first', async () => {
    const file = configFile({
      connections: { mini: { backend: 'opencode', model: 'openai/gpt-5.4-mini', prompts: 3, agent_timeout: 120 } },
      backends: {
        opencode: { executable: '/opt/opencode/bin/opencode', agent_timeout: 600, retries: 4, max_cost: 2.5 },
      },
    });
    expect(await resolve({ prompts: 5 }, file)).toEqual({
      connection: 'mini',
      backend: 'opencode',
      model: 'openai/gpt-5.4-mini',
      executable: '/opt/opencode/bin/opencode',
      prompts: 5,
      retries: 4,
      agentTimeoutS: 120,
      maxAttempts: AGENT_DEFAULTS.maxAttempts,
      agentErrorRetries: AGENT_DEFAULTS.agentErrorRetries,
      maxCostUsd: 2.5,
    });
  });

  it("a descriptor's defaults come after the configuration, before the built-in ones", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pr-desc-'));
    writeFileSync(
      join(dir, 'local.json'),
      JSON.stringify({ name: 'local', command: ['local-llm'], defaults: { model: 'qwen', agent_timeout: 900 } }),
    );
    const file = join(dir, 'llm_config.json');
    writeFileSync(file, JSON.stringify({ connections: { here: { backend: './local.json' } } }));
    const settings = await resolve({}, file);
    expect(settings).toMatchObject({ backend: join(dir, 'local.json'), model: 'qwen', agentTimeoutS: 900 });
    expect(await resolve({ model: 'other', agentTimeoutS: 30 }, file)).toMatchObject({
      model: 'other',
      agentTimeoutS: 30,
    });
  });

  it('several connections and none chosen: a usage error listing them; an unknown name too', async () => {
    const file = configFile({ connections: { a: { backend: 'claude' }, b: { backend: 'opencode' } } });
    await expect(resolve({}, file)).rejects.toThrow(UsageError);
    await expect(resolve({}, file)).rejects.toThrow(
      `${file}: several connections are defined (a, b); choose one with --connection`,
    );
    await expect(resolve({ connection: 'c' }, file)).rejects.toThrow(
      `--connection c: no such connection in ${file} (defined: a, b)`,
    );
    expect(await resolve({ connection: 'b' }, file)).toMatchObject({ connection: 'b', backend: 'opencode' });
    expect(await resolve({ backend: 'claude' }, file)).toMatchObject({ backend: 'claude' });
  });

  it.each(['api_key', 'apiKey', 'auth_token', 'token', 'password', 'secret'])(
    'refuses a file holding a credential (%s), anywhere',
    async (key) => {
      const file = configFile({
        backends: { opencode: { executable: 'opencode' } },
        connections: { a: { backend: 'opencode' } },
        extra: { deep: { [key]: 'x' } },
      });
      await expect(resolve({}, file)).rejects.toThrow(
        `${file}: extra.deep.${key}: credentials do not belong here; the agent CLI owns authentication`,
      );
    },
  );

  it('max_tokens and other keys that merely contain "token" are not credentials, but unknown keys are named', async () => {
    const file = configFile({ connections: { a: { backend: 'claude', max_tokens: 4000 } } });
    await expect(resolve({}, file)).rejects.toThrow(`${file}: connections.a.max_tokens: unknown key`);
  });

  it('bad values name the key and the file', async () => {
    await expect(resolve({}, configFile({ connections: { a: { prompts: 0 } } }))).rejects.toThrow(
      /llm_config.json: connections\.a\.prompts: /,
    );
    await expect(resolve({}, configFile('{ "connections": '))).rejects.toThrow(/llm_config.json: not valid JSON/);
  });

  it('an unknown backend named by a connection blames the file and the key, not a flag never given', async () => {
    const file = configFile({ connections: { x: { backend: 'nonesuch' } } });
    const error = await resolve({}, file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe(
      `${file}: connections.x.backend: unknown backend 'nonesuch' (known: claude, opencode, builtin; or give a descriptor file path)`,
    );
    await expect(resolve({ backend: 'nonesuch' }, file)).rejects.toThrow(
      /^--backend nonesuch: unknown backend \(known: /,
    );
    const missing = configFile({ connections: { x: { backend: './nowhere.json' } } });
    await expect(resolve({}, missing)).rejects.toThrow(
      `${missing}: connections.x.backend: ${join(missing, '..', 'nowhere.json')}: cannot read the backend descriptor: does not exist`,
    );
  });

  it('every problem of the file at once, one line each', async () => {
    const file = configFile({
      connections: { a: { backend: 'claude', prompts: 0, max_tokens: 1, colour: 'red' }, b: { retries: -1 } },
      backends: { claude: { executable: '' } },
      extra: { api_key: 'x' },
    });
    const error = await resolve({}, file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message.split('\n').sort()).toEqual(
      [
        `${file}: extra.api_key: credentials do not belong here; the agent CLI owns authentication (log in with it, or set its own environment variables), so remove this key`,
        `${file}: connections.a.prompts: Too small: expected number to be >0`,
        `${file}: connections.a.max_tokens: unknown key`,
        `${file}: connections.a.colour: unknown key`,
        `${file}: connections.b.retries: Too small: expected number to be >=0`,
        `${file}: backends.claude.executable: Too small: expected string to have >=1 characters`,
        `${file}: extra: unknown key`,
      ].sort(),
    );
  });

  it('a relative executable is relative to the configuration file; a bare name is looked up on PATH', async () => {
    const file = configFile({
      connections: { a: { backend: 'opencode' } },
      backends: { opencode: { executable: 'bin/opencode' } },
    });
    expect((await resolve({}, file)).executable).toBe(join(file, '..', 'bin', 'opencode'));
    const bare = configFile({
      connections: { a: { backend: 'opencode' } },
      backends: { opencode: { executable: 'opencode-1.18' } },
    });
    expect((await resolve({}, bare)).executable).toBe('opencode-1.18');
  });
});
