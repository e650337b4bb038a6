// Command-line flags → one validated RunOptions (options.md). FLAGS (./flags.ts) declares every
// flag once; toRunOptions validates what was given with the parsers of ./values.ts. Every
// bad value becomes one line of a single UsageError, so the user sees all of them at once. Defaults
// are applied here, not by commander: an agent setting left out must stay undefined so that the
// LLM configuration can supply it (flag > connection > backend > built-in).
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { resolveAgentSettings, type AgentFlags } from '../agent/config.js';
import { loadDescriptor } from '../agent/descriptor.js';
import { checkDotDiscopopFolder, whereToRun } from '../discopop/layout.js';
import { pathKind } from '../discopop/path-kind.js';
import { UsageError } from '../errors.js';
import { repairDir } from '../store/paths.js';
import {
  AGENT_DEFAULTS,
  DEFAULTS,
  RUN_TIMEOUT_FLOOR_S,
  type AgentSettings,
  type Mode,
  type RunOptions,
} from '../formats/run-options.js';
import { LLM_CONFIG_ENV, SLURM_JOBS, type RunFlags } from './flags.js';
import {
  existingDirectory,
  isInside,
  parseCheckRun,
  parseExcludes,
  parseHotspotTypes,
  parseIds,
  parseLauncher,
  parseLauncherArgs,
  parseLogLevel,
  pickMode,
  positiveAmount,
  tolerance,
  wholeNumber,
} from './values.js';

export { FLAGS, flagHelp, LLM_CONFIG_ENV, type Flag, type RunFlags } from './flags.js';

export interface OptionsContext {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * The folder `show` and `report` read; they validate its contents themselves. A folder with no
 * run in it that is not a .discopop either was not meant: the error says which one was.
 */
export async function subcommandDotDir(raw: string | undefined, cwd: string): Promise<string> {
  const dir = resolve(cwd, raw ?? '.');
  if ((await pathKind(dir)) !== 'directory') {
    throw new UsageError(
      `${dir}: --dot-dp-path: expected the .discopop folder of an earlier run; it is not a directory`,
    );
  }
  if ((await pathKind(repairDir(dir))) === 'missing' && (await checkDotDiscopopFolder(dir)) !== null) {
    throw new UsageError(`${dir}: not a .discopop folder and no run recorded here; ${await whereToRun(dir)}`);
  }
  return dir;
}

export async function toRunOptions(flags: RunFlags, ctx: OptionsContext): Promise<RunOptions> {
  const problems: string[] = [];
  const count = (name: string, raw: string | undefined, min: number, fallback: number) =>
    raw === undefined ? fallback : (wholeNumber(name, raw, min, problems) ?? fallback);

  const mode = pickMode(flags, problems);
  if (flags.resume === true && (mode === 'restore' || mode === 'discover-only')) {
    problems.push(`--resume and --${mode} exclude each other: choose one`);
  }
  const { dotDir, projectRoot, workDir, promptDir } = await placesOf(flags, ctx, problems);
  const config = flags.config ?? DEFAULTS.config;
  if (config === '' || config.includes('/') || config === '.' || config === '..') {
    problems.push(`--config: expected the name of a folder under project/configs/, got '${config}'`);
  }
  const hotspotTypes = parseHotspotTypes(flags.hotspotTypes ?? DEFAULTS.hotspotTypes, problems);
  const suggestions = flags.suggestions === undefined ? undefined : parseIds(flags.suggestions, problems);
  const log = parseLogLevel(flags.log ?? DEFAULTS.log, problems);
  const launcher = parseLauncher(flags.launcher ?? DEFAULTS.launcher, problems);
  const launcherArgs = parseLauncherArgs(flags.launcherArgs, launcher, problems);

  const agentFlags = agentFlagsOf(flags, problems);
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
    checkRaces: parseCheckRun(flags.checkRaces, problems, '--check-races'),
    ...(flags.raceCc !== undefined && { raceCc: flags.raceCc }),
    runThreads: count('--run-threads', flags.runThreads, 1, Math.max(2, Math.floor(availableParallelism() / 2))),
    runRepeats: count('--run-repeats', flags.runRepeats, 1, DEFAULTS.runRepeats),
    runTolerance: flags.runTolerance === undefined ? DEFAULTS.runTolerance : tolerance(flags.runTolerance, problems),
    ...(flags.runTimeout !== undefined && {
      runTimeoutS: count('--run-timeout', flags.runTimeout, 1, RUN_TIMEOUT_FLOOR_S),
    }),
    builtin: flags.builtin,
    ...(promptDir !== undefined && { promptDir }),
    contextLines: count('--context-lines', flags.contextLines, 0, DEFAULTS.contextLines),
    maxErrorChars: count('--max-error-chars', flags.maxErrorChars, 1, DEFAULTS.maxErrorChars),
    maxPromptChars: count('--max-prompt-chars', flags.maxPromptChars, 1, DEFAULTS.maxPromptChars),
    log,
    writeLog: flags.writeLog === true,
    progressLines: flags.progressLines === true,
    buildTimeoutS: count('--build-timeout', flags.buildTimeout, 1, DEFAULTS.buildTimeoutS),
    launcher,
    launcherArgs,
  };
  if (problems.length > 0) throw new UsageError(problems.join('\n'));

  const llm = llmConfigLocation(flags.llmConfig, dotDir, ctx);
  const notices: string[] = [];
  const agent = await agentSettings(mode, agentFlags, llm, ctx.cwd, ctx.env, (message) => notices.push(message));
  return { ...partial, llmConfigPath: llm.path, agent, ...(notices.length > 0 && { notices }) };
}

/** The .discopop folder, the project root, a --work-dir outside the project, and --prompt-dir. */
async function placesOf(
  flags: RunFlags,
  ctx: OptionsContext,
  problems: string[],
): Promise<{ dotDir: string; projectRoot?: string; workDir?: string; promptDir?: string }> {
  const dotDir = resolve(ctx.cwd, flags.dotDpPath ?? '.');
  const layoutProblem = await checkDotDiscopopFolder(dotDir);
  if (layoutProblem !== null) problems.push(layoutProblem);
  const projectRoot = await existingDirectory('--project-root', flags.projectRoot, ctx.cwd, problems);
  const workDir = await existingDirectory('--work-dir', flags.workDir, ctx.cwd, problems);
  const root = projectRoot ?? dirname(dotDir);
  if (workDir !== undefined && layoutProblem === null && (await isInside(workDir, root))) {
    problems.push(
      `${workDir}: --work-dir: expected a folder outside the project ${root}: builds and agent conversations never run in the user's tree`,
    );
  }
  const promptDir = await existingDirectory('--prompt-dir', flags.promptDir, ctx.cwd, problems);
  return { dotDir, projectRoot, workDir, promptDir };
}

/** The agent's flags as given; llm_config.json and the defaults fill in the rest (agent/config.ts). */
function agentFlagsOf(flags: RunFlags, problems: string[]): AgentFlags {
  const optionalCount = (name: string, raw: string | undefined, min: number) =>
    raw === undefined ? undefined : wholeNumber(name, raw, min, problems);
  return {
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
  env: OptionsContext['env'],
  warn: (message: string) => void,
): Promise<AgentSettings> {
  if (mode === 'restore' || mode === 'discover-only') {
    // Unused in these modes, but a misspelt --backend is still bad usage, as it is in a repair run.
    if (flags.backend !== undefined && flags.backend !== 'builtin') await loadDescriptor(flags.backend, cwd);
    return { ...AGENT_DEFAULTS, ...definedOnly(flags) };
  }
  return resolveAgentSettings({ flags, llmConfigPath: llm.path, llmConfigExplicit: llm.explicit, cwd, env, warn });
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

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
