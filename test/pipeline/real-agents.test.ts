// The whole pipeline through the built CLI with the real, pinned claude and opencode CLIs, each
// configured the way docs/backends.md tells a user to, talking to the loopback stub provider:
// a rejected answer, a follow-up in the same conversation, a verified repair written back.
// The cases run side by side, each with a stub, a HOME and fixture copies of its own.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'vitest';
import { runProcess } from '../../src/process.js';
import { type SuggestionRecord } from '../../src/formats/results.js';
import { resultsOf } from '../../src/formats/results-document.js';
import { isolatedHome, requireAgentCli } from '../agent/real-cli.js';
import { useFixture } from '../helpers/fixture.js';
import { changedPaths, snapshotTree } from '../helpers/tree-snapshot.js';
import {
  startStubProvider,
  type RecordedRequest,
  type StubBehaviour,
  type StubProvider,
} from '../stub/stub-provider.js';

const CLI = path.resolve('dist/cli.js');
const SYSTEM_PROMPT = readFileSync(path.resolve('prompts/system.md'), 'utf8').trim();
const PATCH = path.join('.discopop', 'patch_generator', '3', '5.patch');

const binaries = { claude: await requireAgentCli('claude'), opencode: await requireAgentCli('opencode') };
type Backend = keyof typeof binaries;

interface Setup {
  args: string[];
  env: Record<string, string>;
  model: string;
}

/** A provider of the test's own, so its recorded requests are this test's alone. */
async function stubProvider(t: TestContext, behaviours: StubBehaviour[]): Promise<StubProvider> {
  const stub = await startStubProvider(behaviours);
  t.onTestFinished(() => stub.close());
  return stub;
}

function tempDir(t: TestContext, prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  t.onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A user's environment: an own HOME, and the pinned CLIs found on PATH like installed ones. */
function userEnv(t: TestContext, backend: Backend): { home: string; env: Record<string, string> } {
  const { home, env } = isolatedHome();
  t.onTestFinished(() => rmSync(home, { recursive: true, force: true }));
  return {
    home,
    env: { ...env, PATH: `${path.dirname(binaries[backend]!)}${path.delimiter}${process.env.PATH ?? ''}` },
  };
}

/** claude against an Anthropic-compatible gateway: the base URL and key in the environment. */
function claudeSetup(t: TestContext, stub: StubProvider): Setup {
  const { env } = userEnv(t, 'claude');
  const model = 'stub-sonnet';
  return {
    model,
    args: ['--backend', 'claude', '--model', model],
    env: { ...env, ANTHROPIC_BASE_URL: stub.url, ANTHROPIC_API_KEY: 'stub-key' },
  };
}

/**
 * opencode against a local OpenAI-compatible server, exactly as docs/backends.md says: the
 * provider in the user's own opencode.json (key from the environment), a connection naming it in
 * llm_config.json.
 */
function opencodeSetup(t: TestContext, stub: StubProvider): Setup {
  const { home, env } = userEnv(t, 'opencode');
  const configDir = path.join(home, '.config', 'opencode');
  mkdirSync(configDir, { recursive: true });
  const provider = {
    npm: '@ai-sdk/openai-compatible',
    name: 'Local server',
    options: { baseURL: `${stub.url}/v1`, apiKey: '{env:LOCAL_LLM_KEY}' },
    models: { 'stub-coder': { name: 'Stub coder' } },
  };
  writeFileSync(
    path.join(configDir, 'opencode.json'),
    JSON.stringify({ $schema: 'https://opencode.ai/config.json', provider: { local: provider } }, null, 2),
  );
  const model = 'local/stub-coder';
  const llmConfig = path.join(tempDir(t, 'pr-llm-config-'), 'llm_config.json');
  writeFileSync(
    llmConfig,
    JSON.stringify({ connections: { local: { backend: 'opencode', model, agent_timeout: 120 } } }, null, 2),
  );
  return { model, args: ['--llm-config', llmConfig], env: { ...env, LOCAL_LLM_KEY: 'stub-key' } };
}

const setups: Record<Backend, (t: TestContext, stub: StubProvider) => Setup> = {
  claude: claudeSetup,
  opencode: opencodeSetup,
};

async function cli(dotDir: string, args: string[], env: Record<string, string> = {}) {
  const outcome = await runProcess({
    command: process.execPath,
    args: [CLI, '--dot-dp-path', dotDir, ...args],
    cwd: dotDir,
    env,
    timeoutMs: 240_000,
  });
  if (outcome.kind !== 'exited') throw new Error(`patch-repair ${args.join(' ')}: ${outcome.kind}`);
  return outcome;
}

function record(dotDir: string, id: string): SuggestionRecord {
  const file = resultsOf(JSON.parse(readFileSync(path.join(dotDir, 'patch_repair', 'results.json'), 'utf8')));
  return file.suggestions.find((s) => s.id === id)!;
}

/** The built-in repairer's verified patch for suggestion 3, as an agent would write it for `root`. */
async function correctDiff(t: TestContext, root: string): Promise<string> {
  const reference = useFixture('demo', t);
  const run = await cli(reference.dotDir, ['--backend', 'builtin', '-s', '3']);
  t.expect(run.exitCode, run.stdout).toBe(0);
  return readFileSync(path.join(reference.root, PATCH), 'utf8').replaceAll(reference.root, root);
}

const inRepairDir = (rel: string) => rel.startsWith(path.join('.discopop', 'patch_repair'));
/** As agents often write it: the headers' paths without diff's timestamps. */
const withoutTimestamps = (diff: string) =>
  diff
    .split('\n')
    .map((line, index) => (index < 2 ? line.split('\t')[0] : line))
    .join('\n');
const answer = (diff: string) => `Here is the corrected patch set.\n\n\`\`\`diff\n${diff}\`\`\`\n`;
const body = (patch: string) => patch.split('\n').slice(2).join('\n');

type Message = { role: string; content: unknown };
const messagesOf = (request: RecordedRequest) => request.body!.messages as Message[];
/** The text of a message: opencode sends a string, claude a list of content blocks. */
const textOf = (content: unknown): string =>
  typeof content === 'string' ? content : (content as { text?: string }[]).map((block) => block.text ?? '').join('');
const systemOf = (request: RecordedRequest): string =>
  request.api === 'anthropic'
    ? textOf(request.body!.system)
    : messagesOf(request)
        .filter((m) => m.role === 'system')
        .map((m) => textOf(m.content))
        .join('\n');
const conversationOf = (request: RecordedRequest) =>
  messagesOf(request)
    .filter((m) => m.role !== 'system')
    .map((m) => ({ role: m.role, text: textOf(m.content) }));

describe.concurrent.each(Object.keys(binaries) as Backend[])(
  'patch-repair with the real %s CLI against the loopback stub',
  (backend) => {
    it.skipIf(binaries[backend] === null)(
      'repairs a suggestion after a follow-up in the same conversation, writing only that patch',
      async (t) => {
        const { expect } = t;
        const { root, dotDir } = useFixture('demo', t);
        const fix = await correctDiff(t, root);
        // The wrong answer, written on top of the generated patch, drops the directive: it applies and
        // would build, but parallelizes nothing.
        const directive = readFileSync(path.join(root, PATCH), 'utf8')
          .split('\n')
          .find((line) => /^\+\s*#pragma omp/.test(line))!
          .slice(1);
        const dropped = [
          `--- ${root}/src/matvec.c`,
          `+++ ${root}/src/matvec.c`,
          '@@ -6,3 +6,3 @@',
          '     int i, j;',
          `-${directive}`,
          '+    /* left sequential: acc is declared inside the loop */',
          '     for (i = 0; i < rows; i++) {',
          '',
        ].join('\n');
        const stub = await stubProvider(t, [{ text: answer(dropped) }, { text: answer(withoutTimestamps(fix)) }]);
        const setup = setups[backend](t, stub);
        const before = snapshotTree(root, inRepairDir);

        const run = await cli(dotDir, [...setup.args, '--no-builtin', '-s', '3'], setup.env);
        expect(run.exitCode, run.stdout + run.stderr).toBe(0);

        expect(record(dotDir, '3')).toMatchObject({
          status: 'repaired',
          attempts: 2,
          accepted_attempt: 2,
          unanswered: 0,
          backend,
          model: setup.model,
        });
        // Tokens as the CLI reported them for both calls; the stub's usage is 10 in, 5 out per reply.
        const results = resultsOf(JSON.parse(readFileSync(path.join(dotDir, 'patch_repair', 'results.json'), 'utf8')));
        const usage = results.suggestions.find((s) => s.id === '3')!;
        expect(usage.input_tokens).toBeGreaterThanOrEqual(20);
        expect(usage.output_tokens).toBe(10);
        // claude prices the model; opencode reports 0 for a custom provider without price data, which is unknown, not free.
        if (backend === 'claude') expect(usage.cost_usd).toBeGreaterThan(0);
        else expect(usage.cost_usd).toBeNull();
        expect(results.run).toMatchObject({
          input_tokens: usage.input_tokens,
          output_tokens: 10,
          cost_usd: usage.cost_usd,
        });
        expect(run.stdout).toContain(`Agent usage reported: ${usage.input_tokens} input tokens, 10 output tokens`);
        // The first answer got as far as the directives check; the second was written.
        const funnel = `Agent answers (${backend}, ${setup.model}): 2 → extracted 2 → applies 2 → canonical 2 → directives kept 1 → builds 1 → written 1`;
        expect(results.run.funnel).toEqual([
          {
            tier: 'agent',
            backend,
            model: setup.model,
            answered: 2,
            extracted: 2,
            applies: 2,
            canonical: 2,
            directives_kept: 1,
            strict: null,
            builds: 1,
            runs_same: null,
            written: 1,
          },
        ]);
        expect(run.stdout).toContain(funnel);
        const verdict = JSON.parse(
          readFileSync(path.join(dotDir, 'patch_repair', 'attempts', '3', '1', 'verdict.json'), 'utf8'),
        );
        expect(verdict).toMatchObject({ outcome: 'rejected', rejected_by: 'directives-kept' });

        // Written back in canonical form (the answer's headers had no timestamps): the generated
        // patch's header paths with diff's timestamps, and the same change the built-in repairer verified.
        const repaired = readFileSync(path.join(root, PATCH), 'utf8');
        const generated = readFileSync(path.join(dotDir, 'patch_repair', 'backups', '3', '5.patch'), 'utf8');
        expect(repaired).not.toBe(generated);
        const headers = (patch: string) =>
          patch
            .split('\n')
            .slice(0, 2)
            .map((line) => line.split('\t')[0]);
        expect(headers(repaired)).toEqual(headers(generated));
        expect(repaired.split('\n')[0]).toMatch(/\t\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9} [+-]\d{4}$/);
        expect(body(repaired)).toBe(body(fix));
        expect(changedPaths(before, snapshotTree(root, inRepairDir))).toEqual([PATCH]);

        const calls = stub.modelCalls();
        expect(calls).toHaveLength(2);
        for (const call of calls) {
          expect(call.body!.model).toBe(setup.model.split('/').at(-1));
          expect(call.body!.tools ?? []).toEqual([]);
          expect(systemOf(call)).toContain(SYSTEM_PROMPT);
        }
        // The follow-up carries the first request and the rejected answer, and names the check.
        const [first, second] = calls.map(conversationOf) as [
          ReturnType<typeof conversationOf>,
          ReturnType<typeof conversationOf>,
        ];
        expect(first.map((m) => m.role)).toEqual(['user']);
        expect(first[0]!.text).toContain('## Generated patch set');
        expect(second.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
        expect(second[0]!.text).toBe(first[0]!.text);
        expect(second[1]!.text).toContain('left sequential');
        expect(second[2]!.text).toContain('rejected at the "directives-kept" check');
        expect(second[2]!.text).not.toContain('## Generated patch set');
      },
    );
  },
);

it.skipIf(binaries.claude === null).concurrent(
  'a provider refusing the key stops the run: exit 4, the suggestion skipped',
  async (t) => {
    const { expect } = t;
    const { root, dotDir } = useFixture('demo', t);
    const stub = await stubProvider(t, [{ status: 401 }]);
    const setup = setups.claude(t, stub);
    const generated = readFileSync(path.join(root, PATCH), 'utf8');

    const run = await cli(dotDir, [...setup.args, '--no-builtin', '-s', '3'], setup.env);
    expect(run.exitCode, run.stdout + run.stderr).toBe(4);
    const skipped = record(dotDir, '3');
    expect(skipped).toMatchObject({ status: 'skipped', attempts: 1, unanswered: 1 });
    expect(skipped.reason).toMatch(/auth/);
    // claude repeats a refused request itself (CLAUDE_CODE_MAX_RETRIES); patch-repair sent one
    // prompt and no follow-up after the fatal answer.
    const conversations = stub.modelCalls().map((call) => JSON.stringify(conversationOf(call)));
    expect(new Set(conversations).size).toBe(1);
    expect(conversationOf(stub.modelCalls()[0]!).map((m) => m.role)).toEqual(['user']);
    expect(readFileSync(path.join(root, PATCH), 'utf8')).toBe(generated);
  },
);
