// The command line to RunOptions: every default, paths resolved against the working directory,
// modes that call no agent, where llm_config.json is looked for, and bad input as one line each with
// exit 2.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { expandHotspotShortFlag, parseCommandLine, type CommandLineContext } from '../../src/cli.js';
import { llmConfigLocation } from '../../src/options/index.js';
import type { RunOptions } from '../../src/formats/run-options.js';
import { minimalProject, writeTree } from '../discopop/dot-tree.js';

function context(cwd: string, env: Record<string, string> = {}): CommandLineContext & { out: string[] } {
  const out: string[] = [];
  return { cwd, env, out, writeOut: (text) => out.push(text) };
}

async function runOptions(argv: string[], cwd: string): Promise<RunOptions> {
  const invocation = await parseCommandLine(argv, context(cwd));
  if (invocation.command !== 'run') throw new Error(`expected a run, got ${invocation.command}`);
  return invocation.options;
}

async function usageMessage(argv: string[], cwd: string): Promise<string> {
  const error = await parseCommandLine(argv, context(cwd)).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UsageError);
  return (error as UsageError).message;
}

describe('argv → RunOptions', () => {
  it('fills every default from inside .discopop', async () => {
    const { dot } = minimalProject();
    expect(await runOptions([], dot)).toEqual({
      mode: 'repair',
      dotDir: dot,
      config: 'tiny',
      hotspotTypes: ['YES', 'MAYBE'],
      threads: 1,
      jobs: availableParallelism(),
      workDir: tmpdir(),
      exclude: [],
      maxRepairs: 0,
      agentJobs: 4,
      resume: false,
      strict: false,
      checkRun: 'off',
      checkRaces: 'off',
      runThreads: Math.max(2, Math.floor(availableParallelism() / 2)),
      runRepeats: 3,
      runTolerance: 1e-6,
      builtin: true,
      agent: { agentTimeoutS: 300, prompts: 2, retries: 2, maxAttempts: 6, agentErrorRetries: 2 },
      llmConfigPath: join(dot, 'patch_repair/llm_config.json'),
      contextLines: 60,
      maxErrorChars: 8000,
      maxPromptChars: 60000,
      log: 'WARNING',
      writeLog: false,
      progressLines: false,
      buildTimeoutS: 3600,
      launcher: 'local',
      launcherArgs: [],
    });
  });

  it.each<[string[], Partial<RunOptions>]>([
    [['-ht', 'no'], { hotspotTypes: ['NO'] }],
    [['-ht=yes,no'], { hotspotTypes: ['YES', 'NO'] }],
    [['--hotspot-types', 'MAYBE, yes'], { hotspotTypes: ['YES', 'MAYBE'] }],
    [['--hotspot-types=no'], { hotspotTypes: ['NO'] }],
    [['--agent-jobs', '1'], { agentJobs: 1 }],
    [['--resume'], { resume: true }],
    [['-s', '3,7,3'], { suggestions: ['3', '7'] }],
    [['--suggestions=12'], { suggestions: ['12'] }],
    [['-c', 'big', '-t', '4', '-j', '3'], { config: 'big', threads: 4, jobs: 3 }],
    [['--config=big', '--threads=8', '--jobs=1'], { config: 'big', threads: 8, jobs: 1 }],
    [['--dry-run'], { mode: 'dry-run' }],
    [['--discover-only'], { mode: 'discover-only' }],
    [['--restore'], { mode: 'restore' }],
    [['--max-repairs', '2'], { maxRepairs: 2 }],
    [['--build-timeout', '90'], { buildTimeoutS: 90 }],
    [['--launcher', 'slurm'], { launcher: 'slurm', launcherArgs: [], jobs: 16 }],
    [['--launcher=slurm', '-j', '64'], { launcher: 'slurm', jobs: 64 }],
    [['--launcher', 'local', '-j', '3'], { launcher: 'local', jobs: 3 }],
    [
      ['--launcher', 'slurm', '--launcher-args', '-p short -c 4 --mem 8G -A proj'],
      { launcherArgs: ['-p', 'short', '-c', '4', '--mem', '8G', '-A', 'proj'] },
    ],
    [
      ['--launcher', 'slurm', '--launcher-args=--comment="two words" --x=\'a b\' c\\ d'],
      { launcherArgs: ['--comment=two words', '--x=a b', 'c d'] },
    ],
    [['--exclude', 'build', '--exclude=data/**/*.h5', '--exclude', 'build'], { exclude: ['build', 'data/**/*.h5'] }],
    [['--check-run'], { checkRun: 'repairs', runRepeats: 3, runTolerance: 1e-6 }],
    [['--check-run', 'all', '--strict'], { checkRun: 'all', strict: true }],
    [['--check-run=all'], { checkRun: 'all' }],
    [
      ['--check-run', '--run-threads', '8', '--run-repeats=1', '--run-tolerance', '1e-3', '--run-timeout', '5'],
      { checkRun: 'repairs', runThreads: 8, runRepeats: 1, runTolerance: 1e-3, runTimeoutS: 5 },
    ],
    [['--run-tolerance', '0'], { runTolerance: 0 }],
    [
      ['--no-builtin', '--strict', '--write-log', '--log', 'debug'],
      { builtin: false, strict: true, writeLog: true, log: 'DEBUG' },
    ],
    [['--progress-lines'], { progressLines: true }],
    [
      ['--context-lines', '0', '--max-error-chars', '100', '--max-prompt-chars', '5000'],
      { contextLines: 0, maxErrorChars: 100, maxPromptChars: 5000 },
    ],
  ])('%j', async (argv, expected) => {
    const { dot } = minimalProject();
    expect(await runOptions(argv, dot)).toMatchObject(expected);
  });

  it('passes the agent flags on for resolution', async () => {
    const { dot } = minimalProject();
    const argv = ['--prompts', '5', '--retries', '0', '--max-attempts', '9', '--agent-error-retries', '1'];
    argv.push('--agent-timeout', '60', '--max-cost', '2.5', '--backend', 'opencode', '--model', 'openai/gpt-5.4-mini');
    expect((await runOptions(argv, dot)).agent).toMatchObject({
      prompts: 5,
      retries: 0,
      maxAttempts: 9,
      agentErrorRetries: 1,
      agentTimeoutS: 60,
      maxCostUsd: 2.5,
      backend: 'opencode',
      model: 'openai/gpt-5.4-mini',
    });
  });

  it('resolves paths against the working directory', async () => {
    const { root, dot } = minimalProject({ 'my-prompts/': '', 'llm.json': '{}' });
    const scratch = mkdtempSync(join(tmpdir(), 'pr-options-scratch-'));
    onTestFinished(() => rmSync(scratch, { recursive: true, force: true }));
    const options = await runOptions(
      [
        '--dot-dp-path',
        '.discopop',
        '--work-dir',
        relative(root, scratch),
        '--prompt-dir',
        'my-prompts',
        '--llm-config',
        'llm.json',
      ],
      root,
    );
    expect(options).toMatchObject({
      dotDir: dot,
      workDir: scratch,
      promptDir: join(root, 'my-prompts'),
      llmConfigPath: join(root, 'llm.json'),
    });
  });
});

it('resolves a relative --backend descriptor path against the working directory', async () => {
  const descriptor = JSON.stringify({ name: 'my-agent', command: ['my-agent', '--model', '{model}'], prompt: 'stdin' });
  const { root, dot } = minimalProject({ 'agents/my-agent.json': descriptor });
  const options = await runOptions(['--backend', '../agents/my-agent.json'], dot);
  expect(options.agent.backend).toBe(join(root, 'agents', 'my-agent.json'));
});

it("carries what llm_config.json's reading warned about to the run, which says it at its start", async () => {
  const config = {
    connections: { qwen: { backend: 'opencode', model: 'local/qwen', agent_timeout: 900, timeout: 600 } },
  };
  const { root, dot } = minimalProject({ 'llm.json': JSON.stringify(config) });
  const options = await runOptions(['--llm-config', '../llm.json'], dot);
  expect(options.agent.agentTimeoutS).toBe(900);
  expect(options.notices).toEqual([
    `${join(root, 'llm.json')}: connections.qwen: agent_timeout 900 s and DiscoPoP's timeout 600 s are both set; agent_timeout is used`,
  ]);
});

describe('modes that call no agent', () => {
  it.each(['--restore', '--discover-only'])(
    '%s does not read the LLM configuration, so a broken one cannot block it',
    async (mode) => {
      const { dot } = minimalProject({ 'broken.json': '{ not json' });
      const options = await runOptions([mode, '--llm-config', '../broken.json', '--prompts', '3'], dot);
      expect(options.mode).toBe(mode.slice(2));
      expect(options.agent).toMatchObject({ prompts: 3, retries: 2 });
      await expect(runOptions(['--llm-config', '../broken.json'], dot)).rejects.toThrow(UsageError);
    },
  );
});

describe('the LLM configuration location', () => {
  const ctx = context('/home/dev/demo', { DISCOPOP_PATCH_REPAIR_LLM_CONFIG: 'shared/llm.json' });

  it.each<[string, string | undefined, CommandLineContext, { path: string; explicit: boolean }]>([
    ['the flag wins', 'cfg.json', ctx, { path: '/home/dev/demo/cfg.json', explicit: true }],
    ['then the environment', undefined, ctx, { path: '/home/dev/demo/shared/llm.json', explicit: true }],
    [
      'then the .discopop default',
      undefined,
      context('/home/dev/demo', {}),
      { path: '/home/dev/demo/.discopop/patch_repair/llm_config.json', explicit: false },
    ],
    [
      'an empty variable counts as unset',
      undefined,
      context('/x', { DISCOPOP_PATCH_REPAIR_LLM_CONFIG: '' }),
      { path: '/home/dev/demo/.discopop/patch_repair/llm_config.json', explicit: false },
    ],
  ])('%s', (_case, flag, c, expected) => {
    expect(llmConfigLocation(flag, '/home/dev/demo/.discopop', c)).toEqual(expected);
  });
});

describe('bad input: one line each, exit 2', () => {
  it.each<[string[], string]>([
    [['--prompts', '-1'], "--prompts: expected a whole number of at least 1; got '-1'"],
    [['-ht', 'hot'], "--hotspot-types: expected a comma-separated list of yes, no, maybe; got 'hot'"],
    [['-ht=yes,'], "--hotspot-types: expected a comma-separated list of yes, no, maybe; got 'yes,'"],
    [['--threads', '2.5'], "--threads: expected a whole number of at least 1; got '2.5'"],
    [['-j', '0'], "--jobs: expected a whole number of at least 1; got '0'"],
    [['--retries', 'two'], "--retries: expected a whole number of at least 0; got 'two'"],
    [['--max-repairs', '1e3'], "--max-repairs: expected a whole number of at least 0; got '1e3'"],
    [['--agent-jobs', '0'], "--agent-jobs: expected a whole number of at least 1; got '0'"],
    [['--resume', '--restore'], '--resume and --restore exclude each other: choose one'],
    [['--discover-only', '--resume'], '--resume and --discover-only exclude each other: choose one'],
    [['--max-cost', 'free'], "--max-cost: expected an amount in US dollars greater than 0, such as 2.50; got 'free'"],
    [['--log', 'loud'], "--log: expected one of DEBUG, INFO, WARNING, ERROR, CRITICAL; got 'loud'"],
    [['--build-timeout', '0'], "--build-timeout: expected a whole number of at least 1; got '0'"],
    [['--launcher', 'pbs'], "--launcher: expected one of local, slurm; got 'pbs'"],
    [
      ['--launcher-args', '-p short'],
      "--launcher-args: only used with --launcher slurm; got '-p short' with --launcher local",
    ],
    [
      ['--launcher', 'slurm', '--launcher-args', '--comment="open'],
      `--launcher-args: cannot split '--comment="open' into words: an unclosed " quote`,
    ],
    [['--check-run', 'some'], "--check-run: expected nothing or 'all' after it; got 'some'"],
    [['--run-threads', '0'], "--run-threads: expected a whole number of at least 1; got '0'"],
    [['--run-repeats', 'three'], "--run-repeats: expected a whole number of at least 1; got 'three'"],
    [
      ['--run-tolerance', '1'],
      "--run-tolerance: expected a relative tolerance from 0 up to (not including) 1, such as 1e-6; got '1'",
    ],
    [
      ['--run-tolerance', '-1e-6'],
      "--run-tolerance: expected a relative tolerance from 0 up to (not including) 1, such as 1e-6; got '-1e-6'",
    ],
    [['--run-timeout', '1.5'], "--run-timeout: expected a whole number of at least 1; got '1.5'"],
    [['-s', '3,,4'], "--suggestions: expected comma-separated suggestion ids such as 3,7; got '3,,4'"],
    [
      ['--exclude', '/abs/build'],
      "--exclude: expected a glob relative to the project root, such as build or 'data/**/*.h5'; got '/abs/build'",
    ],
    [
      ['--exclude', '../sibling'],
      "--exclude: expected a glob relative to the project root, such as build or 'data/**/*.h5'; got '../sibling'",
    ],
    [['-c', 'a/b'], "--config: expected the name of a folder under project/configs/, got 'a/b'"],
    [['--restore', '--dry-run'], '--restore and --dry-run exclude each other: choose one'],
    [['--dry-run', '--discover-only'], '--discover-only and --dry-run exclude each other: choose one'],
    [['--frobnicate'], "unknown option '--frobnicate' (see patch-repair --help)"],
    [['--prompts'], "option '--prompts <n>' argument missing (see patch-repair --help)"],
    [['-ht'], "option '-ht, --hotspot-types <list>' argument missing (see patch-repair --help)"],
    [['extra'], "unknown command 'extra' (commands: show, report; see --help)"],
    [['show', '--prompts', '3'], "unknown option '--prompts' (see patch-repair --help)"],
    [['--prompts', '3', 'report'], 'report takes only --dot-dp-path; --prompts belongs to a repair run'],
  ])('%j', async (argv, expected) => {
    const { dot } = minimalProject();
    expect(await usageMessage(argv, dot)).toBe(expected);
  });

  it('lists several bad values together', async () => {
    const { dot } = minimalProject();
    expect(await usageMessage(['--prompts', '0', '-t', 'x', '-ht', 'warm'], dot)).toBe(
      [
        "--hotspot-types: expected a comma-separated list of yes, no, maybe; got 'warm'",
        "--prompts: expected a whole number of at least 1; got '0'",
        "--threads: expected a whole number of at least 1; got 'x'",
      ].join('\n'),
    );
  });

  it('rejects a --dot-dp-path that is missing, a file, or not a .discopop folder', async () => {
    const root = writeTree({ 'notes.txt': 'x', 'empty/': '', 'proj/.discopop/': '' });
    expect(await usageMessage(['--dot-dp-path', 'gone'], root)).toBe(
      `${root}/gone: --dot-dp-path: expected a .discopop folder; it does not exist`,
    );
    expect(await usageMessage(['--dot-dp-path', 'notes.txt'], root)).toBe(
      `${root}/notes.txt: --dot-dp-path: expected a .discopop folder; it is not a directory`,
    );
    expect(await usageMessage(['--dot-dp-path', 'empty'], root)).toBe(
      `${root}/empty: --dot-dp-path: expected a .discopop folder with FileMapping.txt and patch_generator/; ` +
        'FileMapping.txt and patch_generator/ missing; run inside .discopop or pass --dot-dp-path',
    );
    expect(await usageMessage([], join(root, 'proj'))).toMatch(/; did you mean --dot-dp-path .*\/proj\/\.discopop\?$/);
  });

  it('rejects a --work-dir that does not exist', async () => {
    const { root, dot } = minimalProject();
    writeFileSync(join(root, 'file'), '');
    expect(await usageMessage(['--work-dir', '../nowhere'], dot)).toBe(
      `${root}/nowhere: --work-dir: expected an existing directory; it does not exist`,
    );
    expect(await usageMessage(['--prompt-dir', '../file'], dot)).toBe(
      `${root}/file: --prompt-dir: expected an existing directory; it is not a directory`,
    );
  });

  it('takes --project-root as the project, so a --work-dir inside it is refused', async () => {
    const { root, dot } = minimalProject({ 'elsewhere/src/': '', 'elsewhere/tmp/': '' });
    expect(await runOptions(['--project-root', '../elsewhere'], dot)).toMatchObject({
      projectRoot: `${root}/elsewhere`,
    });
    expect(await usageMessage(['--project-root', '../nowhere'], dot)).toBe(
      `${root}/nowhere: --project-root: expected an existing directory; it does not exist`,
    );
    expect(await usageMessage(['--project-root', '../elsewhere', '--work-dir', '../elsewhere/tmp'], dot)).toBe(
      `${root}/elsewhere/tmp: --work-dir: expected a folder outside the project ${root}/elsewhere: builds and agent conversations never run in the user's tree`,
    );
  });

  it('rejects a --work-dir inside the project: builds and agents never run in the user tree', async () => {
    const { root, dot } = minimalProject({ 'build/scratch/': '' });
    expect(await usageMessage(['--work-dir', '../build/scratch'], dot)).toBe(
      `${root}/build/scratch: --work-dir: expected a folder outside the project ${root}: builds and agent conversations never run in the user's tree`,
    );
  });
});

describe('subcommands, help and version', () => {
  it.each<[string[], object]>([
    [['show'], { command: 'show', dotDir: '<cwd>' }],
    [['show', '7', '--dot-dp-path', '<other>'], { command: 'show', dotDir: '<other>', id: '7' }],
    [['--dot-dp-path', '<other>', 'show', '7'], { command: 'show', dotDir: '<other>', id: '7' }],
    [['report'], { command: 'report', dotDir: '<cwd>' }],
    [['report', '--dot-dp-path=<other>'], { command: 'report', dotDir: '<other>' }],
  ])('%j', async (argv, expected) => {
    const cwd = writeTree({ 'patch_repair/': '' });
    const other = writeTree({ 'patch_repair/': '' });
    const fill = (s: string) => s.replace('<cwd>', cwd).replace('<other>', other);
    const invocation = await parseCommandLine(argv.map(fill), context(cwd));
    expect(invocation).toEqual(JSON.parse(fill(JSON.stringify(expected))));
  });

  it('prints help with DiscoPoP spelling and exits 0 without validating anything', async () => {
    const ctx = context('/nonexistent');
    expect(await parseCommandLine(['--help'], ctx)).toEqual({ command: 'exit', code: 0 });
    const help = ctx.out.join('');
    expect(help).toContain('-ht, --hotspot-types <list>');
    expect(help).toContain('--dot-dp-path <path>');
  });

  it('prints the package version', async () => {
    const ctx = context('/nonexistent');
    expect(await parseCommandLine(['-V'], ctx)).toEqual({ command: 'exit', code: 0 });
    expect(ctx.out.join('')).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it.each<[string[], string[]]>([
    [
      ['-ht', 'no', '-s', '1'],
      ['--hotspot-types', 'no', '-s', '1'],
    ],
    [['-ht=no'], ['--hotspot-types=no']],
    [
      ['-s', '-ht', '--', '-ht'],
      ['-s', '--hotspot-types', '--', '-ht'],
    ],
    [['-hta'], ['-hta']],
  ])("rewrites DiscoPoP's -ht: %j", (argv, expected) => {
    expect(expandHotspotShortFlag(argv)).toEqual(expected);
  });
});
