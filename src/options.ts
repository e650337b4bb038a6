// Command-line flags → one validated RunOptions (options.md). FLAGS declares every flag once (cli.ts
// builds commander's options and the help from it); toRunOptions validates what was given. Every
// bad value becomes one line of a single UsageError, so the user sees all of them at once. Defaults
// are applied here, not by commander: an agent setting left out must stay undefined so that the
// LLM configuration can supply it (flag > connection > backend > built-in).
import { availableParallelism, tmpdir } from 'node:os';
import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { resolveAgentSettings, type AgentFlags } from './agent/config.js';
import { loadDescriptor } from './agent/descriptor.js';
import { LAUNCHERS, splitLauncherArgs, type LauncherName } from './build/launcher.js';
import { checkDotDiscopopFolder, whereToRun } from './discopop/layout.js';
import { pathKind } from './discopop/path-kind.js';
import { UsageError } from './errors.js';
import { repairDir } from './store/paths.js';
import {
  AGENT_DEFAULTS,
  DEFAULTS,
  LOG_LEVELS,
  RUN_TIMEOUT_FACTOR,
  RUN_TIMEOUT_FLOOR_S,
  type AgentSettings,
  type CheckRunScope,
  type FlagKey,
  type LogLevel,
  type Mode,
  type RunOptions,
} from './formats/run-options.js';
import { HOTNESS, type Hotness } from './formats/types.js';

export interface OptionsContext {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
}

export const LLM_CONFIG_ENV = 'DISCOPOP_PATCH_REPAIR_LLM_CONFIG';
/** Builds in flight with --launcher slurm when -j is not given: the scheduler queues the rest. */
export const SLURM_JOBS = 16;

export interface Flag {
  /** Commander's spelling: short and long name and the value placeholder. */
  flags: string;
  /** The name commander stores the value under in RunFlags; checked when the program is built. */
  attribute: keyof RunFlags;
  help: string;
  /** What leaving the flag out means, when that is not a value of DEFAULTS. */
  absent?: string;
  /** How --help spells it, when that differs from what commander can parse. */
  shown?: string;
  /** Given more than once, every value is kept (in order), not only the last. */
  repeatable?: true;
}

/**
 * Every flag of a repair run, in --help order, keyed by the setting it gives. The compiler checks
 * that each setting of RunOptions has its flag and that no flag sets something RunOptions lacks.
 */
export const FLAGS = {
  dotDir: { flags: '--dot-dp-path <path>', attribute: 'dotDpPath', help: 'the .discopop folder', absent: 'current directory' },
  projectRoot: { flags: '--project-root <dir>', attribute: 'projectRoot', help: 'the project whose sources FileMapping.txt names, when .discopop is not directly inside it', absent: 'the parent of .discopop' },
  config: { flags: '-c, --config <name>', attribute: 'config', help: 'execution configuration under project/configs/' },
  // DiscoPoP's `-ht` is rewritten to the long form before parsing (cli.ts, expandHotspotShortFlag).
  hotspotTypes: { flags: '--hotspot-types <list>', shown: '-ht, --hotspot-types <list>', attribute: 'hotspotTypes', help: 'hotspot types to consider: yes, no, maybe' },
  suggestions: { flags: '-s, --suggestions <ids>', attribute: 'suggestions', help: 'comma-separated suggestion ids; overrides the hotspot filter' },
  threads: { flags: '-t, --threads <n>', attribute: 'threads', help: 'OMP_NUM_THREADS given to the builds' },
  jobs: { flags: '-j, --jobs <n>', attribute: 'jobs', help: 'builds run at once', absent: `available cores; ${SLURM_JOBS} with --launcher slurm` },
  workDir: {
    flags: '--work-dir <dir>',
    attribute: 'workDir',
    help: 'where workspaces and agent conversations live; with --launcher slurm, a folder the compute nodes share',
    absent: 'OS temporary directory',
  },
  buildTimeoutS: { flags: '--build-timeout <s>', attribute: 'buildTimeout', help: 'seconds one build (patch + compile.sh) may take' },
  launcher: { flags: '--launcher <name>', attribute: 'launcher', help: `where builds run: ${LAUNCHERS.join(' or ')} (each build an srun job step)` },
  launcherArgs: { flags: '--launcher-args <args>', attribute: 'launcherArgs', help: 'passed to srun as given, e.g. "-p short -c 4 --mem 8G -A proj"' },
  exclude: { flags: '--exclude <glob>', attribute: 'exclude', help: 'leave files or folders matching this glob (relative to the project root) out of every build workspace; repeatable', absent: 'none', repeatable: true },
  prompts: { flags: '--prompts <n>', attribute: 'prompts', help: 'independent conversations per suggestion' },
  retries: { flags: '--retries <m>', attribute: 'retries', help: 'follow-up turns inside one conversation' },
  maxAttempts: { flags: '--max-attempts <n>', attribute: 'maxAttempts', help: 'ceiling on answered agent calls per suggestion' },
  maxRepairs: { flags: '--max-repairs <n>', attribute: 'maxRepairs', help: 'stop after this many repaired suggestions; 0 = no limit' },
  agentJobs: { flags: '--agent-jobs <n>', attribute: 'agentJobs', help: 'suggestions repaired at the same time (agent calls in flight); 1 = one after another' },
  resume: { flags: '--resume', attribute: 'resume', help: 'continue the most recent unfinished run of this .discopop without asking again what it asked' },
  agentErrorRetries: { flags: '--agent-error-retries <k>', attribute: 'agentErrorRetries', help: 'extra calls per suggestion when a call gets no answer' },
  connection: { flags: '--connection <name>', attribute: 'connection', help: 'a connection of the LLM configuration', absent: 'the only one defined' },
  backend: { flags: '--backend <name>', attribute: 'backend', help: 'opencode, claude, builtin, or a descriptor in backends/', absent: 'from the connection' },
  model: { flags: '--model <id>', attribute: 'model', help: "the backend's model id", absent: 'from the connection' },
  agentTimeoutS: { flags: '--agent-timeout <s>', attribute: 'agentTimeout', help: 'seconds one agent call may take' },
  maxCostUsd: { flags: '--max-cost <usd>', attribute: 'maxCost', help: 'stop agent calls once the reported cost of this run reaches it' },
  strict: { flags: '--strict', attribute: 'strict', help: 'refuse candidates that remove a reduction or privatizing clause or change non-directive lines' },
  checkRun: {
    flags: '--check-run [scope]',
    shown: '--check-run [all]',
    attribute: 'checkRun',
    help: "check 7: run each candidate with the configuration's execute.sh at 1 and N threads against the sequential build; all = also run the suggestions that build as generated",
    absent: 'off',
  },
  runThreads: { flags: '--run-threads <n>', attribute: 'runThreads', help: 'OMP_NUM_THREADS of the N-thread runs of --check-run', absent: 'max(2, cores / 2)' },
  runRepeats: { flags: '--run-repeats <k>', attribute: 'runRepeats', help: 'N-thread runs per candidate (races are intermittent)' },
  runTolerance: { flags: '--run-tolerance <r>', attribute: 'runTolerance', help: 'relative tolerance for numbers in the compared output; integers and text exact', absent: '1e-6' },
  runTimeoutS: { flags: '--run-timeout <s>', attribute: 'runTimeout', help: 'seconds one run of --check-run may take', absent: `${RUN_TIMEOUT_FACTOR} × the sequential run, at least ${RUN_TIMEOUT_FLOOR_S}` },
  llmConfigPath: { flags: '--llm-config <path>', attribute: 'llmConfig', help: 'LLM configuration', absent: `$${LLM_CONFIG_ENV}, else <dot-dp-path>/patch_repair/llm_config.json` },
  promptDir: { flags: '--prompt-dir <dir>', attribute: 'promptDir', help: 'prompt templates to use instead of the built-in ones' },
  contextLines: { flags: '--context-lines <n>', attribute: 'contextLines', help: 'source lines of context around each patched region in a prompt' },
  maxErrorChars: { flags: '--max-error-chars <n>', attribute: 'maxErrorChars', help: 'most characters of compiler diagnostics in one prompt' },
  maxPromptChars: { flags: '--max-prompt-chars <n>', attribute: 'maxPromptChars', help: 'most characters of a whole prompt' },
  builtin: { flags: '--no-builtin', attribute: 'builtin', help: 'skip the built-in repairer; send every failing suggestion to the agent' },
  mode: [
    { flags: '--discover-only', attribute: 'discoverOnly', help: 'preflight and discovery only: no agent call, nothing written but the results' },
    { flags: '--dry-run', attribute: 'dryRun', help: 'run the whole pipeline but leave patch_generator/ as it was' },
    { flags: '--restore', attribute: 'restore', help: 'put back the patch sets backed up by earlier repairs, and exit' },
  ],
  log: { flags: '--log <level>', attribute: 'log', help: LOG_LEVELS.join(', ') },
  writeLog: { flags: '--write-log', attribute: 'writeLog', help: 'also write the log to patch_repair/patch_repair.log' },
} as const satisfies Record<FlagKey, Flag | readonly Flag[]>;

/** The help line of a flag: its text and, when leaving it out means something, that meaning. */
export function flagHelp(key: FlagKey, flag: Flag): string {
  const fallback = flag.absent ?? (key in DEFAULTS ? String(DEFAULTS[key as keyof typeof DEFAULTS]) : undefined);
  return fallback === undefined ? flag.help : `${flag.help} (default: ${fallback})`;
}

/** Raw values as commander hands them over: strings, or booleans for switches. */
export interface RunFlags {
  dotDpPath?: string;
  projectRoot?: string;
  config?: string;
  hotspotTypes?: string;
  suggestions?: string;
  threads?: string;
  jobs?: string;
  workDir?: string;
  buildTimeout?: string;
  launcher?: string;
  launcherArgs?: string;
  exclude?: string[];
  prompts?: string;
  retries?: string;
  maxAttempts?: string;
  maxRepairs?: string;
  agentJobs?: string;
  resume?: boolean;
  agentErrorRetries?: string;
  connection?: string;
  backend?: string;
  model?: string;
  agentTimeout?: string;
  maxCost?: string;
  strict?: boolean;
  /** true for a bare --check-run, the word after it otherwise. */
  checkRun?: boolean | string;
  runThreads?: string;
  runRepeats?: string;
  runTolerance?: string;
  runTimeout?: string;
  llmConfig?: string;
  promptDir?: string;
  contextLines?: string;
  maxErrorChars?: string;
  maxPromptChars?: string;
  builtin: boolean;
  discoverOnly?: boolean;
  dryRun?: boolean;
  restore?: boolean;
  log?: string;
  writeLog?: boolean;
}

/**
 * The folder `show` and `report` read; they validate its contents themselves. A folder with no
 * run in it that is not a .discopop either was not meant: the error says which one was.
 */
export async function subcommandDotDir(raw: string | undefined, cwd: string): Promise<string> {
  const dir = resolve(cwd, raw ?? '.');
  if ((await pathKind(dir)) !== 'directory') {
    throw new UsageError(`${dir}: --dot-dp-path: expected the .discopop folder of an earlier run; it is not a directory`);
  }
  if ((await pathKind(repairDir(dir))) === 'missing' && (await checkDotDiscopopFolder(dir)) !== null) {
    throw new UsageError(`${dir}: not a .discopop folder and no run recorded here; ${await whereToRun(dir)}`);
  }
  return dir;
}

export async function toRunOptions(flags: RunFlags, ctx: OptionsContext): Promise<RunOptions> {
  const problems: string[] = [];
  const count = (name: string, raw: string | undefined, min: number, fallback: number) =>
    raw === undefined ? fallback : wholeNumber(name, raw, min, problems) ?? fallback;
  const optionalCount = (name: string, raw: string | undefined, min: number) =>
    raw === undefined ? undefined : wholeNumber(name, raw, min, problems);

  const mode = pickMode(flags, problems);
  if (flags.resume === true && (mode === 'restore' || mode === 'discover-only')) {
    problems.push(`--resume and --${mode} exclude each other: choose one`);
  }
  const dotDir = resolve(ctx.cwd, flags.dotDpPath ?? '.');
  const layoutProblem = await checkDotDiscopopFolder(dotDir);
  if (layoutProblem !== null) problems.push(layoutProblem);

  const config = flags.config ?? DEFAULTS.config;
  if (config === '' || config.includes('/') || config === '.' || config === '..') {
    problems.push(`--config: expected the name of a folder under project/configs/, got '${config}'`);
  }
  const hotspotTypes = parseHotspotTypes(flags.hotspotTypes ?? DEFAULTS.hotspotTypes, problems);
  const suggestions = flags.suggestions === undefined ? undefined : parseIds(flags.suggestions, problems);
  const projectRoot = await existingDirectory('--project-root', flags.projectRoot, ctx.cwd, problems);
  const workDir = await existingDirectory('--work-dir', flags.workDir, ctx.cwd, problems);
  const root = projectRoot ?? dirname(dotDir);
  if (workDir !== undefined && layoutProblem === null && (await isInside(workDir, root))) {
    problems.push(`${workDir}: --work-dir: expected a folder outside the project ${root}: builds and agent conversations never run in the user's tree`);
  }
  const promptDir = await existingDirectory('--prompt-dir', flags.promptDir, ctx.cwd, problems);
  const log = parseLogLevel(flags.log ?? DEFAULTS.log, problems);
  const launcher = parseLauncher(flags.launcher ?? DEFAULTS.launcher, problems);
  const launcherArgs = parseLauncherArgs(flags.launcherArgs, launcher, problems);

  const agentFlags: AgentFlags = {
    connection: flags.connection,
    backend: flags.backend,
    model: flags.model,
    agentTimeoutS: optionalCount('--agent-timeout', flags.agentTimeout, 1),
    prompts: optionalCount('--prompts', flags.prompts, 1),
    retries: optionalCount('--retries', flags.retries, 0),
    maxAttempts: optionalCount('--max-attempts', flags.maxAttempts, 1),
    agentErrorRetries: optionalCount('--agent-error-retries', flags.agentErrorRetries, 0),
    maxCostUsd: flags.maxCost === undefined ? undefined : positiveAmount('--max-cost', flags.maxCost, problems),
  };
  const partial = {
    mode,
    dotDir,
    ...(projectRoot !== undefined && { projectRoot }),
    config,
    hotspotTypes,
    ...(suggestions !== undefined && { suggestions }),
    threads: count('--threads', flags.threads, 1, DEFAULTS.threads),
    jobs: count('--jobs', flags.jobs, 1, launcher === 'slurm' ? SLURM_JOBS : availableParallelism()),
    workDir: workDir ?? tmpdir(),
    exclude: parseExcludes(flags.exclude ?? [], problems),
    maxRepairs: count('--max-repairs', flags.maxRepairs, 0, DEFAULTS.maxRepairs),
    agentJobs: count('--agent-jobs', flags.agentJobs, 1, DEFAULTS.agentJobs),
    resume: flags.resume === true,
    strict: flags.strict === true,
    checkRun: parseCheckRun(flags.checkRun, problems),
    runThreads: count('--run-threads', flags.runThreads, 1, Math.max(2, Math.floor(availableParallelism() / 2))),
    runRepeats: count('--run-repeats', flags.runRepeats, 1, DEFAULTS.runRepeats),
    runTolerance: flags.runTolerance === undefined ? DEFAULTS.runTolerance : tolerance(flags.runTolerance, problems),
    ...(flags.runTimeout !== undefined && { runTimeoutS: count('--run-timeout', flags.runTimeout, 1, RUN_TIMEOUT_FLOOR_S) }),
    builtin: flags.builtin,
    ...(promptDir !== undefined && { promptDir }),
    contextLines: count('--context-lines', flags.contextLines, 0, DEFAULTS.contextLines),
    maxErrorChars: count('--max-error-chars', flags.maxErrorChars, 1, DEFAULTS.maxErrorChars),
    maxPromptChars: count('--max-prompt-chars', flags.maxPromptChars, 1, DEFAULTS.maxPromptChars),
    log,
    writeLog: flags.writeLog === true,
    buildTimeoutS: count('--build-timeout', flags.buildTimeout, 1, DEFAULTS.buildTimeoutS),
    launcher,
    launcherArgs,
  };
  if (problems.length > 0) throw new UsageError(problems.join('\n'));

  const llm = llmConfigLocation(flags.llmConfig, dotDir, ctx);
  return { ...partial, llmConfigPath: llm.path, agent: await agentSettings(mode, agentFlags, llm, ctx.cwd) };
}

/**
 * --restore and --discover-only call no agent, so they do not read llm_config.json at all: a
 * restore stays possible whatever state the configuration is in, and discovery needs no choice
 * among several connections.
 */
async function agentSettings(
  mode: Mode,
  flags: AgentFlags,
  llm: { path: string; explicit: boolean },
  cwd: string,
): Promise<AgentSettings> {
  if (mode === 'restore' || mode === 'discover-only') {
    // Unused in these modes, but a misspelt --backend is still bad usage, as it is in a repair run.
    if (flags.backend !== undefined && flags.backend !== 'builtin') await loadDescriptor(flags.backend, cwd);
    return { ...AGENT_DEFAULTS, ...definedOnly(flags) };
  }
  return resolveAgentSettings({ flags, llmConfigPath: llm.path, llmConfigExplicit: llm.explicit, cwd });
}

/** A path the user named (flag or environment) must exist; the default location may be absent. */
export function llmConfigLocation(
  flag: string | undefined,
  dotDir: string,
  ctx: OptionsContext,
): { path: string; explicit: boolean } {
  if (flag !== undefined) return { path: resolve(ctx.cwd, flag), explicit: true };
  const fromEnv = ctx.env[LLM_CONFIG_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return { path: resolve(ctx.cwd, fromEnv), explicit: true };
  return { path: join(repairDir(dotDir), 'llm_config.json'), explicit: false };
}

function pickMode(flags: RunFlags, problems: string[]): Mode {
  const chosen = (
    [
      ['--restore', flags.restore],
      ['--discover-only', flags.discoverOnly],
      ['--dry-run', flags.dryRun],
    ] as const
  ).filter(([, on]) => on === true);
  if (chosen.length > 1) {
    problems.push(`${chosen.map(([name]) => name).join(' and ')} exclude each other: choose one`);
  }
  const first = chosen[0]?.[0];
  if (first === '--restore') return 'restore';
  if (first === '--discover-only') return 'discover-only';
  if (first === '--dry-run') return 'dry-run';
  return 'repair';
}

function parseCheckRun(raw: boolean | string | undefined, problems: string[]): CheckRunScope {
  if (raw === undefined || raw === false) return 'off';
  if (raw === true) return 'repairs';
  if (raw === 'all') return 'all';
  problems.push(`--check-run: expected nothing or 'all' after it; got '${raw}'`);
  return 'off';
}

function tolerance(raw: string, problems: string[]): number {
  const value = /^\s*\d+(\.\d*)?([eE][+-]?\d+)?\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (value >= 0 && value < 1) return value;
  problems.push(`--run-tolerance: expected a relative tolerance from 0 up to (not including) 1, such as 1e-6; got '${raw}'`);
  return DEFAULTS.runTolerance;
}

function parseHotspotTypes(raw: string, problems: string[]): Hotness[] {
  const items = raw.split(',').map((item) => item.trim());
  const bad = items.filter((item) => !HOTNESS.includes(item.toUpperCase() as Hotness));
  if (bad.length > 0) {
    problems.push(`--hotspot-types: expected a comma-separated list of yes, no, maybe; got '${raw}'`);
    return [];
  }
  return HOTNESS.filter((h) => items.some((item) => item.toUpperCase() === h));
}

function parseIds(raw: string, problems: string[]): string[] {
  const ids = raw.split(',').map((id) => id.trim());
  if (ids.some((id) => id === '' || id.includes('/'))) {
    problems.push(`--suggestions: expected comma-separated suggestion ids such as 3,7; got '${raw}'`);
    return [];
  }
  return [...new Set(ids)];
}

function parseLauncher(raw: string, problems: string[]): LauncherName {
  if ((LAUNCHERS as readonly string[]).includes(raw)) return raw as LauncherName;
  problems.push(`--launcher: expected one of ${LAUNCHERS.join(', ')}; got '${raw}'`);
  return 'local';
}

/** Without Slurm the arguments would be dropped silently, which a user would never expect. */
function parseLauncherArgs(raw: string | undefined, launcher: LauncherName, problems: string[]): string[] {
  if (raw === undefined) return [];
  if (launcher !== 'slurm') {
    problems.push(`--launcher-args: only used with --launcher slurm; got '${raw}' with --launcher ${launcher}`);
    return [];
  }
  const words = splitLauncherArgs(raw);
  if (Array.isArray(words)) return words;
  problems.push(`--launcher-args: cannot split '${raw}' into words: ${words.problem}`);
  return [];
}

/** Globs are matched in the project root: an absolute path or `..` would name something outside it. */
function parseExcludes(globs: string[], problems: string[]): string[] {
  for (const glob of globs) {
    if (glob.trim() === '' || isAbsolute(glob) || glob.split('/').includes('..')) {
      problems.push(`--exclude: expected a glob relative to the project root, such as build or 'data/**/*.h5'; got '${glob}'`);
    }
  }
  return [...new Set(globs)];
}

function parseLogLevel(raw: string, problems: string[]): LogLevel {
  const level = LOG_LEVELS.find((name) => name === raw.toUpperCase());
  if (level !== undefined) return level;
  problems.push(`--log: expected one of ${LOG_LEVELS.join(', ')}; got '${raw}'`);
  return DEFAULTS.log;
}

function wholeNumber(name: string, raw: string, min: number, problems: string[]): number | undefined {
  const value = /^\s*[+-]?\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (Number.isSafeInteger(value) && value >= min) return value;
  problems.push(`${name}: expected a whole number of at least ${min}; got '${raw}'`);
  return undefined;
}

function positiveAmount(name: string, raw: string, problems: string[]): number | undefined {
  const value = /^\s*\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (value > 0) return value;
  problems.push(`${name}: expected an amount in US dollars greater than 0, such as 2.50; got '${raw}'`);
  return undefined;
}

async function existingDirectory(
  name: string,
  raw: string | undefined,
  cwd: string,
  problems: string[],
): Promise<string | undefined> {
  if (raw === undefined) return undefined;
  const dir = resolve(cwd, raw);
  const kind = await pathKind(dir);
  if (kind === 'directory') return dir;
  problems.push(`${dir}: ${name}: expected an existing directory; ${kind === 'missing' ? 'it does not exist' : 'it is not a directory'}`);
  return undefined;
}

async function isInside(dir: string, root: string): Promise<boolean> {
  const [realDir, realRoot] = await Promise.all([realpath(dir), realpath(root)]);
  const rel = relative(realRoot, realDir);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

