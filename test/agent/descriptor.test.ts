// Backend descriptors: every shipped one is valid, a broken one is one line per problem naming the
// file and key, placeholders fill or drop as documented, and the agent's environment keeps the
// user's while every tool and permission stays off.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinBackendNames, loadDescriptor, parseDescriptor } from '../../src/agent/descriptor.js';
import { agentEnvironment } from '../../src/agent/environment.js';
import { fillArgs, fillJson } from '../../src/agent/template.js';

describe('backend descriptors', () => {
  it('every descriptor shipped in backends/ is valid', async () => {
    const names = await builtinBackendNames();
    expect(names).toEqual(expect.arrayContaining(['claude', 'opencode']));
    for (const name of names) expect((await loadDescriptor(name)).name).toBe(name);
  });

  it('a descriptor file is found by path, relative to the current directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pr-desc-'));
    writeFileSync(join(dir, 'mine.json'), JSON.stringify({ name: 'mine', command: ['mine'] }));
    expect((await loadDescriptor('./mine.json', dir)).prompt).toBe('stdin');
  });

  it('a broken descriptor is one line naming the file and the key', () => {
    expect(() => parseDescriptor('{"name":"x","command":["x"],"prompt":"pipe"}', 'x.json')).toThrow(
      /^x\.json: prompt: /,
    );
    expect(() => parseDescriptor('{"name":"x","command":[]}', 'x.json')).toThrow(/^x\.json: command: /);
    expect(() => parseDescriptor('{"name":"x","command":["x"],"outptu":{}}', 'x.json')).toThrow(
      /^x\.json: outptu: unknown key$/,
    );
  });

  it('every problem of a descriptor at once, one line each', () => {
    const error = (() => {
      try {
        parseDescriptor('{"name":"x","command":[],"prompt":"pipe","outptu":{}}', 'x.json');
      } catch (e) {
        return e as Error;
      }
      return null;
    })();
    const lines = error?.message.split('\n') ?? [];
    expect(lines).toHaveLength(3);
    expect(lines.map((line) => line.split(': ').slice(0, 2).join(': ')).sort()).toEqual([
      'x.json: command',
      'x.json: outptu',
      'x.json: prompt',
    ]);
  });
});

describe('placeholders', () => {
  it('an argument group without a value disappears; a plain argument must fill', () => {
    expect(fillArgs(['run', ['-m', '{model}'], '--title', 't'], { model: undefined })).toEqual(['run', '--title', 't']);
    expect(fillArgs(['run', ['-m', '{model}']], { model: 'a/b' })).toEqual(['run', '-m', 'a/b']);
    expect(() => fillArgs(['--model', '{model}'], { model: undefined })).toThrow('{model} has no value');
  });

  it('JSON keeps value types, escapes text safely, and drops keys whose placeholder has no value', () => {
    const json = { prompt: '{system_prompt}', provider: { '{provider}': { timeout: '{agent_timeout_ms}' } } };
    const prompt = 'Say "hi"\nand {braces}';
    expect(
      JSON.parse(JSON.stringify(fillJson(json, { system_prompt: prompt, provider: 'openai', agent_timeout_ms: 5000 }))),
    ).toEqual({
      prompt,
      provider: { openai: { timeout: 5000 } },
    });
    expect(fillJson(json, { system_prompt: 'x', provider: undefined, agent_timeout_ms: 5000 })).toEqual({
      prompt: 'x',
      provider: {},
    });
  });
});

describe('agent environment', () => {
  it("keeps the user's own settings (HOME, credentials) but nothing that points into the project", async () => {
    const descriptor = await loadDescriptor('claude');
    const env = agentEnvironment({
      descriptor,
      cwd: '/scratch/conversation-1',
      values: { agent_timeout_ms: 60000 },
      base: {
        HOME: '/home/u',
        ANTHROPIC_API_KEY: 'k',
        DP_PROJECT_ROOT_DIR: '/p',
        DOT_DISCOPOP: '/p/.discopop',
        INIT_CWD: '/p',
        npm_config_local_prefix: '/p',
        OLDPWD: '/p',
        PWD: '/p',
      },
    });
    expect(env).toMatchObject({
      HOME: '/home/u',
      ANTHROPIC_API_KEY: 'k',
      PWD: '/scratch/conversation-1',
      API_TIMEOUT_MS: '60000',
      DISABLE_AUTOUPDATER: '1',
    });
    expect(Object.values(env)).not.toContain('/p');
    expect(Object.values(env).some((v) => v.startsWith('/p/'))).toBe(false);
  });

  it("opencode gets its agent definition with every tool and permission off, merged into the user's config", async () => {
    const env = agentEnvironment({
      descriptor: await loadDescriptor('opencode'),
      cwd: '/scratch/c',
      values: { system_prompt: 'SYS', provider: 'openai', agent_timeout_ms: 300000 },
      base: {},
    });
    const config = JSON.parse(env.OPENCODE_CONFIG_CONTENT!);
    expect(config.permission).toEqual({ '*': 'deny' });
    expect(config.agent['patch-repair']).toMatchObject({
      prompt: 'SYS',
      tools: { '*': false },
      permission: { '*': 'deny' },
    });
    expect(config.provider.openai.options.timeout).toBe(300000);
  });
});
