// Shared setup for the tests that drive the real claude and opencode CLIs against the loopback
// stub: the pinned CLIs (installed on first use), an isolated HOME, and an agent built by the
// production createAgent from the production descriptor.
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describeOutcome, runProcess, type RunOutcome } from '../../src/process.js';
import { createAgent } from '../../src/agent/create.js';
import type { Agent, CallResult, Conversation } from '../../src/agent/types.js';
import type { RecordedRequest, StubBehaviour, StubProvider } from '../stub/stub-provider.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const LOCK = join(ROOT, '.cache', 'agents.install-lock');

export const binaryOf = (name: 'claude' | 'opencode') => join(ROOT, '.cache', 'agents', 'node_modules', '.bin', name);
export const VERSIONS = { claude: '2.1.197 (Claude Code)', opencode: '1.18.33' } as const;

async function works(name: 'claude' | 'opencode'): Promise<boolean> {
  const outcome = await runProcess({ command: binaryOf(name), args: ['--version'], cwd: tmpdir(), timeoutMs: 30_000 });
  return outcome.kind === 'exited' && outcome.exitCode === 0 && outcome.stdout.trim() === VERSIONS[name];
}

async function withInstallLock<T>(fn: () => Promise<T>): Promise<T> {
  mkdirSync(join(ROOT, '.cache'), { recursive: true });
  const deadline = Date.now() + 300_000;
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`${LOCK} held for 5 minutes; remove it if no install is running`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/** Installs the pinned CLIs on first use; null when that is impossible here (no registry). */
export async function requireAgentCli(name: 'claude' | 'opencode'): Promise<string | null> {
  if (await works(name)) return binaryOf(name);
  const installed = await withInstallLock(async () => {
    if (await works(name)) return true;
    const outcome = await runProcess({
      command: process.execPath,
      args: [join(ROOT, 'scripts', 'install-agents.mjs'), '--quiet'],
      cwd: ROOT,
      timeoutMs: 300_000,
    });
    return outcome.kind === 'exited' && outcome.exitCode === 0 && (await works(name));
  });
  if (installed) return binaryOf(name);
  console.warn(
    `skipping the ${name} CLI tests: ${name} ${VERSIONS[name]} could not be installed; run \`node scripts/install-agents.mjs\` (needs the npm registry)`,
  );
  return null;
}

/** A HOME (and XDG dirs) of its own, so the user's logins, settings and sessions are never touched. */
export function isolatedHome(): { home: string; env: Record<string, string> } {
  const home = mkdtempSync(join(tmpdir(), 'pr-agent-home-'));
  const env = {
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
  };
  return { home, env };
}

/** The user's own opencode config, as a user with a local OpenAI-compatible server would write it. */
export function writeOpencodeUserConfig(home: string, baseUrl: string): void {
  const dir = join(home, '.config', 'opencode');
  mkdirSync(dir, { recursive: true });
  const config = {
    $schema: 'https://opencode.ai/config.json',
    provider: {
      stub: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Stub',
        options: { baseURL: `${baseUrl}/v1`, apiKey: 'stub-key' },
        models: { 'stub-model': { name: 'Stub model' } },
      },
    },
  };
  writeFileSync(join(dir, 'opencode.json'), JSON.stringify(config, null, 2));
}

/**
 * opencode creates its database at its first start in a HOME, and two first starts at once race
 * (one fails: "Failed query: CREATE TABLE ..."). An agent prepares it once before its own calls
 * (backends/opencode.json `prepare`); tests that make several agents on one HOME, each of which
 * would prepare it at once, create it first.
 */
export async function createOpencodeDatabase(env: Record<string, string>): Promise<void> {
  const outcome = await runProcess({
    command: binaryOf('opencode'),
    args: ['db', 'path'],
    cwd: env.HOME!,
    env,
    timeoutMs: 120_000,
  });
  if (outcome.kind !== 'exited' || outcome.exitCode !== 0)
    throw new Error(`opencode db path ${describeOutcome(outcome)}`);
}

export interface RecordedRun {
  args: string[];
  outcome: RunOutcome;
}

// The runs of the calls made inside recordedCall, each call's apart: tests call at the same time.
const callRuns = new AsyncLocalStorage<RecordedRun[]>();

export async function realAgent(o: {
  backend: 'claude' | 'opencode';
  executable: string;
  model: string;
  env: Record<string, string>;
  agentTimeoutS: number;
  scratchDir: string;
  systemPrompt?: string;
  /** llm_config.json's backend options (claude's `agent`, `effort`…). */
  backendOptions?: Record<string, string | boolean>;
  /** llm_config.json's extra_args. */
  extraArgs?: string[];
}): Promise<Agent> {
  const { agent } = await createAgent({
    settings: {
      backend: o.backend,
      executable: o.executable,
      model: o.model,
      agentTimeoutS: o.agentTimeoutS,
      prompts: 2,
      retries: 2,
      maxAttempts: 6,
      agentErrorRetries: 2,
      ...(o.backendOptions ? { backendOptions: o.backendOptions } : {}),
      ...(o.extraArgs ? { extraArgs: o.extraArgs } : {}),
    },
    scratchDir: o.scratchDir,
    systemPrompt: o.systemPrompt ?? 'You repair OpenMP patches. Answer with one unified diff.',
    env: o.env,
    onRun: (run) => callRuns.getStore()?.push(run),
  });
  if (!agent) throw new Error(`createAgent gave no agent for ${o.backend}`);
  return agent;
}

/** One agent call; with RECORD_AGENT_FIXTURES=1, its CLI run is kept as fixtures/agents/<backend>/<fixture>.json. */
export async function recordedCall(
  agent: Agent,
  conversation: Conversation,
  prompt: string,
  fixture: string,
): Promise<CallResult> {
  const runs: RecordedRun[] = [];
  const result = await callRuns.run(runs, () => agent.call(conversation, prompt));
  recordFixture(agent.backend, fixture, runs.at(-1));
  return result;
}

/** One call in a conversation of its own, with a prompt of its own that the stub answers with `behaviours`. */
export async function callOnce(
  stub: StubProvider,
  agent: Agent,
  fixture: string,
  behaviours: StubBehaviour[],
): Promise<CallResult> {
  const prompt = `Fix this patch (${fixture}).`;
  stub.route(prompt, behaviours);
  const conversation = await agent.open();
  const result = await recordedCall(agent, conversation, prompt, fixture);
  await agent.close(conversation);
  return result;
}

/** The first case of each CLI's tests: a prompt with quotes and a line break, answered 'STUB ANSWER 1'. */
export async function answerCall(
  stub: StubProvider,
  agent: Agent,
): Promise<{ prompt: string; conversation: Conversation; result: CallResult; requests: RecordedRequest[] }> {
  const prompt = 'Fix this "patch":\n--- a/x.c\n';
  const route = stub.route(prompt, [{ text: 'STUB ANSWER 1' }]);
  const conversation = await agent.open();
  const result = await recordedCall(agent, conversation, prompt, 'answer');
  return { prompt, conversation, result, requests: route.modelCalls() };
}

function recordFixture(backend: string, name: string, run: RecordedRun | undefined): void {
  if (process.env.RECORD_AGENT_FIXTURES !== '1' || !run || run.outcome.kind === 'spawn-failed') return;
  const dir = join(ROOT, 'fixtures', 'agents', backend);
  mkdirSync(dir, { recursive: true });
  const { outcome } = run;
  const fixture = {
    backend,
    version: VERSIONS[backend as 'claude' | 'opencode'],
    case: name,
    outcome: {
      kind: outcome.kind,
      ...(outcome.kind === 'exited' ? { exitCode: outcome.exitCode } : {}),
      stdout: outcome.stdout,
      stderr: withoutBundlePaths(outcome.stderr.slice(-4000)),
      truncated: outcome.truncated,
      durationMs: outcome.durationMs,
    },
  };
  writeFileSync(join(dir, `${name}.json`), JSON.stringify(fixture, null, 2) + '\n');
}

/**
 * opencode's stack frames name files in Bun's virtual file system (`/$bunfs/…/chunk-….js`),
 * which reads like a path of the recording machine; the classification never looks at them.
 */
function withoutBundlePaths(text: string): string {
  return text.replace(/\/\$bunfs\/[^/]+\//g, '<bundle>/');
}
