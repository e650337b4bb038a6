// The one validated shape every stage reads its settings from (options.md). src/options.ts builds
// it from the command line and llm_config.json; nothing else parses flags.
import type { Hotness } from './types.js';

export const LOG_LEVELS = ['DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type Mode = 'repair' | 'dry-run' | 'discover-only' | 'restore';
export type CheckRunScope = 'off' | 'repairs' | 'all';

/** A run may take this many times the reference run (options.md, --run-timeout)… */
export const RUN_TIMEOUT_FACTOR = 10;
/** …but never less than this many seconds: a fast reference says little about a loaded machine. */
export const RUN_TIMEOUT_FLOOR_S = 60;
/** ThreadSanitizer slows a program down about 5–15×: a race run's default limit is this many times a plain run's. */
export const RACE_SLOWDOWN = 15;

export interface AgentSettings {
  /** Connection name from llm_config.json, if one was used. */
  connection?: string;
  /** `opencode`, `claude`, `builtin`, a descriptor name in backends/, or a descriptor file path; undefined = detect. */
  backend?: string;
  model?: string;
  /** Executable override from the backends section of llm_config.json. */
  executable?: string;
  agentTimeoutS: number;
  prompts: number;
  retries: number;
  maxAttempts: number;
  agentErrorRetries: number;
  maxCostUsd?: number;
  /** llm_config.json's options only one agent understands (claude's effort, opencode's model_variant…), set ones only. */
  backendOptions?: Record<string, string | boolean>;
  /** Arguments added to every call: the backend section's, then the connection's. */
  extraArgs?: string[];
  /** The agent CLI's environment only: results.json records the names, never the values. */
  env?: Record<string, string>;
}

export interface RunOptions {
  mode: Mode;
  dotDir: string;
  /** --project-root; without it the parent of the .discopop folder. */
  projectRoot?: string;
  config: string;
  hotspotTypes: Hotness[];
  suggestions?: string[];
  threads: number;
  jobs: number;
  workDir: string;
  /** Globs relative to the project root: files and folders left out of every workspace. */
  exclude: string[];
  maxRepairs: number;
  /** Suggestions repaired at the same time (agent calls in flight). */
  agentJobs: number;
  /** Continue the most recent unfinished run of this .discopop instead of starting afresh. */
  resume: boolean;
  strict: boolean;
  /** Check 7: off; `repairs` runs every candidate; `all` also runs the suggestions that build as generated. */
  checkRun: CheckRunScope;
  /** --check-races: off; `repairs` checks every accepted candidate; `all` also the suggestions that build as generated. */
  checkRaces: CheckRunScope;
  /** --race-cc: the clang of the race build, instead of the one the run finds. */
  raceCc?: string;
  /** OMP_NUM_THREADS of the N-thread runs of check 7 and of the race run. */
  runThreads: number;
  /** N-thread runs per candidate: races are intermittent. */
  runRepeats: number;
  /** Relative tolerance for numbers in a compared output; integers and text compare exactly. */
  runTolerance: number;
  /** Seconds one run may take; undefined = 10 × the reference run, at least RUN_TIMEOUT_FLOOR_S. */
  runTimeoutS?: number;
  builtin: boolean;
  agent: AgentSettings;
  llmConfigPath: string;
  /** What reading the options found questionable but used (llm_config.json), said at the run's start; not recorded. */
  notices?: string[];
  promptDir?: string;
  contextLines: number;
  maxErrorChars: number;
  maxPromptChars: number;
  log: LogLevel;
  writeLog: boolean;
  /** --progress-lines: DiscoPoP's `@@PR_PROGRESS <json>` lines on stdout. */
  progressLines: boolean;
  /** Seconds one build (patch + compile.sh) may take. */
  buildTimeoutS: number;
  /** Where builds run: here, or each as a Slurm job step. */
  launcher: 'local' | 'slurm';
  /** Extra srun arguments, already split into words. */
  launcherArgs: string[];
}

/** The settings a command-line flag sets; every other field of RunOptions is derived. */
export type FlagKey =
  | Exclude<keyof RunOptions, 'agent' | 'notices'>
  | Exclude<keyof AgentSettings, 'executable' | 'backendOptions' | 'extraArgs' | 'env'>;

/**
 * Agent settings when neither a flag nor the LLM configuration nor the backend descriptor sets
 * them (options.md: flag > connection > backend > descriptor > these).
 */
export const AGENT_DEFAULTS = {
  agentTimeoutS: 300,
  prompts: 2,
  retries: 2,
  maxAttempts: 6,
  agentErrorRetries: 2,
} as const satisfies Partial<Record<FlagKey, number>>;

/** What a flag left out means, in the flag's own spelling; the help text shows the same values. */
export const DEFAULTS = {
  config: 'tiny',
  hotspotTypes: 'yes,maybe',
  threads: 1,
  maxRepairs: 0,
  // Agent calls mostly wait on a remote model, so more run at once than the machine has cores.
  agentJobs: 4,
  contextLines: 60,
  maxErrorChars: 8000,
  maxPromptChars: 60000,
  log: 'WARNING',
  /** DiscoPoP's project manager gives each script this long (formats.md §1.8). */
  buildTimeoutS: 3600,
  launcher: 'local',
  runRepeats: 3,
  runTolerance: 1e-6,
  ...AGENT_DEFAULTS,
} as const satisfies Partial<Record<FlagKey, string | number>>;
