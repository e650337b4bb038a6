// The command line (options.md) → one validated RunOptions, or a subcommand. Names, short forms
// and defaults follow DiscoPoP's own tools. Nothing here runs anything: the result is data, so the
// whole surface can be tested argv → value.
import { readFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { resolveAgentSettings, AGENT_DEFAULTS, type AgentFlags } from './agent/config.js';
import { checkDotDiscopopFolder } from './discopop/layout.js';
import { pathKind } from './discopop/path-kind.js';
import { UsageError } from './errors.js';
import type { AgentSettings, LogLevel, Mode, RunOptions } from './run-options.js';
import type { Hotness } from './types.js';

export type Invocation =
  | { command: 'run'; options: RunOptions }
  | { command: 'show'; dotDir: string; id?: string }
  | { command: 'report'; dotDir: string }
  /** Help or version was printed; nothing else to do. */
  | { command: 'exit'; code: number };

export interface CommandLineContext {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Where help and version text go. */
  writeOut: (text: string) => void;
}

export const LLM_CONFIG_ENV = 'DISCOPOP_PATCH_REPAIR_LLM_CONFIG';
/** DiscoPoP's project manager gives each script this long (formats.md §1.8); there is no flag. */
export const BUILD_TIMEOUT_S = 3600;
const LOG_LEVELS: readonly LogLevel[] = ['DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL'];
const HOTNESS: readonly Hotness[] = ['YES', 'NO', 'MAYBE'];

/** Raw values as commander hands them over: strings, or booleans for switches. */
interface RawFlags {
  dotDpPath?: string;
  config?: string;
  hotspotTypes?: string;
  suggestions?: string;
  threads?: string;
  jobs?: string;
  workDir?: string;
  prompts?: string;
  retries?: string;
  maxAttempts?: string;
  maxRepairs?: string;
  agentErrorRetries?: string;
  connection?: string;
  backend?: string;
  model?: string;
  agentTimeout?: string;
  maxCost?: string;
  strict?: boolean;
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

type Parsed =
  | { command: 'run'; flags: RawFlags }
  | { command: 'show'; dotDpPath?: string; id?: string }
  | { command: 'report'; dotDpPath?: string };

export async function parseCommandLine(argv: readonly string[], ctx: CommandLineContext): Promise<Invocation> {
  let parsed: Parsed | undefined;
  const program = buildProgram(ctx, (p) => {
    parsed = p;
  });
  try {
    await program.parseAsync(expandHotspotShortFlag(argv), { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    if (error.exitCode === 0) return { command: 'exit', code: 0 };
    throw new UsageError(`${error.message.replace(/^error: /, '')} (see patch-repair --help)`);
  }
  if (parsed === undefined) throw new Error('commander finished without calling an action');
  if (parsed.command === 'run') return { command: 'run', options: await toRunOptions(parsed.flags, ctx) };
  const dotDir = await subcommandDotDir(parsed.dotDpPath, ctx.cwd);
  return parsed.command === 'show'
    ? { command: 'show', dotDir, ...(parsed.id !== undefined && { id: parsed.id }) }
    : { command: 'report', dotDir };
}

/**
 * DiscoPoP spells the hotspot option `-ht`: two letters after one dash, which commander (like any
 * getopt-style parser) would read as `-h -t`. Rewriting it to the long form keeps both spellings
 * identical, `-ht=X` included.
 */
export function expandHotspotShortFlag(argv: readonly string[]): string[] {
  const end = argv.indexOf('--');
  return argv.map((arg, i) => {
    if (end !== -1 && i > end) return arg;
    if (arg === '-ht') return '--hotspot-types';
    if (arg.startsWith('-ht=')) return `--hotspot-types=${arg.slice('-ht='.length)}`;
    return arg;
  });
}

function buildProgram(ctx: CommandLineContext, done: (parsed: Parsed) => void): Command {
  const program = new Command('patch-repair');
  const quiet = (cmd: Command) =>
    cmd.exitOverride().configureOutput({ writeOut: ctx.writeOut, writeErr: () => {}, outputError: () => {} });
  quiet(program)
    .description(
      'Find DiscoPoP suggestions whose patch does not build, repair them with a coding agent or the built-in repairer, verify, and write back only verified patch sets.',
    )
    .version(packageVersion(), '-V, --version')
    .enablePositionalOptions()
    // No option carries a commander default: an option left out must stay undefined so that the
    // LLM configuration can supply it (flag > connection > backend > built-in).
    .option('--dot-dp-path <path>', 'the .discopop folder; the project root is its parent (default: current directory)')
    .option('-c, --config <name>', 'execution configuration under project/configs/ (default: tiny)')
    .addOption(hotspotTypesOption())
    .option('-s, --suggestions <ids>', 'comma-separated suggestion ids; overrides the hotspot filter')
    .option('-t, --threads <n>', 'OMP_NUM_THREADS given to the builds (default: 1)')
    .option('-j, --jobs <n>', 'builds run at once (default: available cores)')
    .option('--work-dir <dir>', 'where workspaces and agent conversations live (default: OS temporary directory)')
    .option('--prompts <n>', `independent attempts per suggestion (default: ${AGENT_DEFAULTS.prompts})`)
    .option('--retries <m>', `follow-up turns inside one attempt (default: ${AGENT_DEFAULTS.retries})`)
    .option('--max-attempts <n>', `ceiling on answered agent calls per suggestion (default: ${AGENT_DEFAULTS.maxAttempts})`)
    .option('--max-repairs <n>', 'stop after this many repaired suggestions; 0 = no limit (default: 0)')
    .option(
      '--agent-error-retries <k>',
      `extra calls per suggestion when a call gets no answer (default: ${AGENT_DEFAULTS.agentErrorRetries})`,
    )
    .option('--connection <name>', 'a connection of the LLM configuration (default: the only one defined)')
    .option('--backend <name>', 'opencode, claude, builtin, or a descriptor in backends/ (default: from the connection)')
    .option('--model <id>', "the backend's model id (default: from the connection)")
    .option('--agent-timeout <s>', `seconds one agent call may take (default: ${AGENT_DEFAULTS.agentTimeoutS})`)
    .option('--max-cost <usd>', 'stop agent calls once the reported cost of this run reaches it')
    .option('--strict', 'refuse candidates that remove a reduction or privatizing clause or change non-directive lines')
    .option('--llm-config <path>', `LLM configuration (default: $${LLM_CONFIG_ENV}, else <dot-dp-path>/patch_repair/llm_config.json)`)
    .option('--prompt-dir <dir>', 'prompt templates to use instead of the built-in ones')
    .option('--context-lines <n>', 'source lines of context around each patched region in a prompt (default: 60)')
    .option('--max-error-chars <n>', 'most characters of compiler diagnostics in one prompt (default: 8000)')
    .option('--max-prompt-chars <n>', 'most characters of a whole prompt (default: 60000)')
    .option('--no-builtin', 'skip the built-in repairer; send every failing suggestion to the agent')
    .option('--discover-only', 'preflight and discovery only: no agent call, nothing written but the results')
    .option('--dry-run', 'run the whole pipeline but leave patch_generator/ as it was')
    .option('--restore', 'put back the patch sets backed up by earlier repairs, and exit')
    .option('--log <level>', 'DEBUG, INFO, WARNING, ERROR, CRITICAL (default: WARNING)')
    .option('--write-log', 'also write the log to patch_repair/patch_repair.log')
    .action((flags: RawFlags) => done({ command: 'run', flags }));

  quiet(program.command('show'))
    .description('redisplay a finished run from progress.jsonl')
    .argument('[id]', 'one suggestion to show in detail')
    .option('--dot-dp-path <path>', 'the .discopop folder (default: current directory)')
    .action((id: string | undefined, o: { dotDpPath?: string }, cmd: Command) => {
      rejectRunOptions(program, 'show');
      done({ command: 'show', dotDpPath: o.dotDpPath ?? parentDotDp(cmd), ...(id !== undefined && { id }) });
    });
  quiet(program.command('report'))
    .description('write the HTML review page of the last run')
    .option('--dot-dp-path <path>', 'the .discopop folder (default: current directory)')
    .action((o: { dotDpPath?: string }, cmd: Command) => {
      rejectRunOptions(program, 'report');
      done({ command: 'report', dotDpPath: o.dotDpPath ?? parentDotDp(cmd) });
    });
  return program;
}

/** Declared by its long name (see expandHotspotShortFlag); the help shows DiscoPoP's spelling. */
function hotspotTypesOption(): Option {
  const option = new Option('--hotspot-types <list>', 'hotspot types to consider: yes, no, maybe (default: yes,maybe)');
  option.flags = '-ht, --hotspot-types <list>';
  return option;
}

/** `patch-repair --dot-dp-path X show` reads as naturally as `show --dot-dp-path X`. */
function parentDotDp(cmd: Command): string | undefined {
  return (cmd.parent?.opts() as RawFlags | undefined)?.dotDpPath;
}

function rejectRunOptions(program: Command, subcommand: string): void {
  const given = program.options
    .filter((o) => o.attributeName() !== 'dotDpPath' && program.getOptionValueSource(o.attributeName()) === 'cli')
    .map((o) => o.long ?? o.flags);
  if (given.length > 0) {
    const verb = given.length === 1 ? 'belongs' : 'belong';
    throw new UsageError(`${subcommand} takes only --dot-dp-path; ${given.join(', ')} ${verb} to a repair run`);
  }
}

async function subcommandDotDir(raw: string | undefined, cwd: string): Promise<string> {
  const dir = resolve(cwd, raw ?? '.');
  if ((await pathKind(dir)) !== 'directory') {
    throw new UsageError(`${dir}: --dot-dp-path: expected the .discopop folder of an earlier run; it is not a directory`);
  }
  return dir;
}

async function toRunOptions(flags: RawFlags, ctx: CommandLineContext): Promise<RunOptions> {
  const problems: string[] = [];
  const count = (name: string, raw: string | undefined, min: number, fallback: number) =>
    raw === undefined ? fallback : wholeNumber(name, raw, min, problems) ?? fallback;
  const optionalCount = (name: string, raw: string | undefined, min: number) =>
    raw === undefined ? undefined : wholeNumber(name, raw, min, problems);

  const mode = pickMode(flags, problems);
  const dotDir = resolve(ctx.cwd, flags.dotDpPath ?? '.');
  const layoutProblem = await checkDotDiscopopFolder(dotDir);
  if (layoutProblem !== null) problems.push(layoutProblem);

  const config = flags.config ?? 'tiny';
  if (config === '' || config.includes('/') || config === '.' || config === '..') {
    problems.push(`--config: expected the name of a folder under project/configs/, got '${config}'`);
  }
  const hotspotTypes = parseHotspotTypes(flags.hotspotTypes ?? 'yes,maybe', problems);
  const suggestions = flags.suggestions === undefined ? undefined : parseIds(flags.suggestions, problems);
  const workDir = await existingDirectory('--work-dir', flags.workDir, ctx.cwd, problems);
  const promptDir = await existingDirectory('--prompt-dir', flags.promptDir, ctx.cwd, problems);
  const log = parseLogLevel(flags.log ?? 'WARNING', problems);

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
    config,
    hotspotTypes,
    ...(suggestions !== undefined && { suggestions }),
    threads: count('--threads', flags.threads, 1, 1),
    jobs: count('--jobs', flags.jobs, 1, availableParallelism()),
    workDir: workDir ?? tmpdir(),
    maxRepairs: count('--max-repairs', flags.maxRepairs, 0, 0),
    strict: flags.strict === true,
    builtin: flags.builtin,
    ...(promptDir !== undefined && { promptDir }),
    contextLines: count('--context-lines', flags.contextLines, 0, 60),
    maxErrorChars: count('--max-error-chars', flags.maxErrorChars, 1, 8000),
    maxPromptChars: count('--max-prompt-chars', flags.maxPromptChars, 1, 60000),
    log,
    writeLog: flags.writeLog === true,
    buildTimeoutS: BUILD_TIMEOUT_S,
  };
  if (problems.length > 0) throw new UsageError(problems.join('\n'));

  const llm = llmConfigLocation(flags.llmConfig, dotDir, ctx);
  return { ...partial, llmConfigPath: llm.path, agent: await agentSettings(mode, agentFlags, llm) };
}

/**
 * A restore must stay possible whatever state the LLM configuration is in, and it calls no agent,
 * so it does not read llm_config.json at all.
 */
async function agentSettings(
  mode: Mode,
  flags: AgentFlags,
  llm: { path: string; explicit: boolean },
): Promise<AgentSettings> {
  if (mode === 'restore') return { ...AGENT_DEFAULTS, ...definedOnly(flags) };
  return resolveAgentSettings({ flags, llmConfigPath: llm.path, llmConfigExplicit: llm.explicit });
}

/** A path the user named (flag or environment) must exist; the default location may be absent. */
export function llmConfigLocation(
  flag: string | undefined,
  dotDir: string,
  ctx: CommandLineContext,
): { path: string; explicit: boolean } {
  if (flag !== undefined) return { path: resolve(ctx.cwd, flag), explicit: true };
  const fromEnv = ctx.env[LLM_CONFIG_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return { path: resolve(ctx.cwd, fromEnv), explicit: true };
  return { path: join(dotDir, 'patch_repair', 'llm_config.json'), explicit: false };
}

function pickMode(flags: RawFlags, problems: string[]): Mode {
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

function parseLogLevel(raw: string, problems: string[]): LogLevel {
  const level = raw.toUpperCase() as LogLevel;
  if (LOG_LEVELS.includes(level)) return level;
  problems.push(`--log: expected one of ${LOG_LEVELS.join(', ')}; got '${raw}'`);
  return 'WARNING';
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

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function packageVersion(): string {
  // Both src/ (tests) and dist/ (installed) sit one level below package.json.
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}
