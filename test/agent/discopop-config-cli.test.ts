// A DiscoPoP-written llm_config.json drives the real claude and opencode CLIs (pinned, from
// .cache/agents) against the loopback stub: its backend options, extra arguments and environment
// reach the CLI and, where the CLI forwards them, the model request.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveAgentSettings } from '../../src/agent/config.js';
import { createAgent } from '../../src/agent/create.js';
import { startStubProvider, type StubProvider } from '../stub/stub-provider.js';
import { isolatedHome, requireAgentCli, writeOpencodeUserConfig, type RecordedRun } from './real-cli.js';

const claude = await requireAgentCli('claude');
const opencode = await requireAgentCli('opencode');

function configFile(content: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), 'pr-dpcli-')), 'llm_config.json');
  writeFileSync(file, JSON.stringify(content, null, 4));
  return file;
}

async function agentFrom(file: string, binaries: Record<string, string>, env: Record<string, string>) {
  const settings = await resolveAgentSettings({
    flags: {},
    llmConfigPath: file,
    llmConfigExplicit: true,
    env: binaries,
  });
  const runs: RecordedRun[] = [];
  const scratchDir = mkdtempSync(join(tmpdir(), 'pr-dpcli-scratch-'));
  const { agent } = await createAgent({
    settings,
    scratchDir,
    systemPrompt: 'You repair OpenMP patches.',
    env,
    onRun: (run) => runs.push(run),
  });
  return { agent: agent!, runs };
}

describe('a DiscoPoP-written llm_config.json reaches the real CLIs', () => {
  let stub: StubProvider;
  beforeAll(async () => {
    stub = await startStubProvider();
  });
  afterAll(async () => {
    await stub?.close();
  });

  it.skipIf(claude === null)('claude: effort, append_system_prompt, extra_args and env', async () => {
    const file = configFile({
      version: 1,
      backends: {
        claude: {
          binary: 'claude',
          env: { ANTHROPIC_CUSTOM_HEADERS: 'X-Discopop-Lab: tuda' },
          extra_args: ['--max-budget-usd', '3'],
          options: {},
        },
      },
      connections: {
        sonnet: {
          backend: 'claude',
          model: 'claude-sonnet-4-5',
          backend_options: { agent: '', append_system_prompt: 'Keep the loop order.', effort: 'high' },
          extra_args: ['--exclude-dynamic-system-prompt-sections'],
          env: { CLAUDE_CODE_MAX_OUTPUT_TOKENS: '12345' },
        },
      },
    });
    const env = {
      ...isolatedHome().env,
      ANTHROPIC_BASE_URL: stub.url,
      ANTHROPIC_API_KEY: 'stub-key',
      CLAUDE_CODE_MAX_RETRIES: '1',
    };
    // DISCOPOP_CLAUDE replaces the `binary` the file names, as in DiscoPoP.
    const { agent, runs } = await agentFrom(file, { DISCOPOP_CLAUDE: claude! }, env);
    stub.script([{ text: 'STUB ANSWER' }]);
    const before = stub.modelCalls().length;
    const conversation = await agent.open();
    const result = await agent.call(conversation, 'Fix this patch.');
    await agent.close(conversation);
    expect(result).toMatchObject({ kind: 'answered', text: 'STUB ANSWER' });
    const args = runs[0]!.args;
    expect(args.join(' ')).toContain(
      '--effort high --append-system-prompt Keep the loop order. --max-budget-usd 3 --exclude-dynamic-system-prompt-sections',
    );
    const request = stub.modelCalls()[before]!;
    expect(JSON.stringify(request.body?.system)).toContain('Keep the loop order.');
    expect(request.headers['x-discopop-lab']).toBe('tuda');
    expect(request.body?.max_tokens).toBe(12345);
    expect(request.body?.tools).toEqual([]);
  });

  it.skipIf(opencode === null)('opencode: model_variant, extra_args and env', async () => {
    const home = isolatedHome();
    writeOpencodeUserConfig(home.home, stub.url);
    const file = configFile({
      version: 1,
      backends: { opencode: { binary: 'opencode', env: {}, extra_args: [], options: { model_variant: '' } } },
      connections: {
        qwen: {
          backend: 'opencode',
          model: 'stub/stub-model',
          agent: '',
          auto: false,
          backend_options: { model_variant: 'high' },
          extra_args: ['--thinking'],
          env: { OPENCODE_DISABLE_AUTOCOMPACT: '1' },
        },
      },
    });
    const { agent, runs } = await agentFrom(file, { DISCOPOP_OPENCODE: opencode! }, home.env);
    stub.script([{ text: 'STUB ANSWER' }]);
    const conversation = await agent.open();
    const result = await agent.call(conversation, 'Fix this patch.');
    await agent.close(conversation);
    expect(result).toMatchObject({ kind: 'answered', text: 'STUB ANSWER' });
    expect(runs[0]!.args.join(' ')).toContain('--variant high --thinking');
  });
});
