// The flag table (options.md): every flag of a repair run once, keyed by the setting it gives.
// cli.ts builds commander's options and the help from it; ./index.ts validates what was given.
import { LAUNCHERS } from '../build/launcher.js';
import {
  DEFAULTS,
  LOG_LEVELS,
  RACE_SLOWDOWN,
  RUN_TIMEOUT_FACTOR,
  RUN_TIMEOUT_FLOOR_S,
  type FlagKey,
} from '../formats/run-options.js';

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
  dotDir: {
    flags: '--dot-dp-path <path>',
    attribute: 'dotDpPath',
    help: 'the .discopop folder',
    absent: 'current directory',
  },
  projectRoot: {
    flags: '--project-root <dir>',
    attribute: 'projectRoot',
    help: 'the project whose sources FileMapping.txt names, when .discopop is not directly inside it',
    absent: 'the parent of .discopop',
  },
  config: { flags: '-c, --config <name>', attribute: 'config', help: 'execution configuration under project/configs/' },
  // DiscoPoP's `-ht` is rewritten to the long form before parsing (cli.ts, expandHotspotShortFlag).
  hotspotTypes: {
    flags: '--hotspot-types <list>',
    shown: '-ht, --hotspot-types <list>',
    attribute: 'hotspotTypes',
    help: 'hotspot types to consider: yes, no, maybe',
  },
  suggestions: {
    flags: '-s, --suggestions <ids>',
    attribute: 'suggestions',
    help: 'comma-separated suggestion ids; overrides the hotspot filter',
  },
  threads: { flags: '-t, --threads <n>', attribute: 'threads', help: 'OMP_NUM_THREADS given to the builds' },
  jobs: {
    flags: '-j, --jobs <n>',
    attribute: 'jobs',
    help: 'builds run at once',
    absent: `available cores; ${SLURM_JOBS} with --launcher slurm`,
  },
  workDir: {
    flags: '--work-dir <dir>',
    attribute: 'workDir',
    help: 'where workspaces and agent conversations live; with --launcher slurm, a folder the compute nodes share',
    absent: 'OS temporary directory',
  },
  buildTimeoutS: {
    flags: '--build-timeout <s>',
    attribute: 'buildTimeout',
    help: 'seconds one build (patch + compile.sh) may take',
  },
  launcher: {
    flags: '--launcher <name>',
    attribute: 'launcher',
    help: `where builds run: ${LAUNCHERS.join(' or ')} (each build an srun job step)`,
  },
  launcherArgs: {
    flags: '--launcher-args <args>',
    attribute: 'launcherArgs',
    help: 'passed to srun as given, e.g. "-p short -c 4 --mem 8G -A proj"',
  },
  exclude: {
    flags: '--exclude <glob>',
    attribute: 'exclude',
    help: 'leave files or folders matching this glob (relative to the project root) out of every build workspace; repeatable',
    absent: 'none',
    repeatable: true,
  },
  prompts: { flags: '--prompts <n>', attribute: 'prompts', help: 'independent conversations per suggestion' },
  retries: { flags: '--retries <m>', attribute: 'retries', help: 'follow-up turns inside one conversation' },
  maxAttempts: {
    flags: '--max-attempts <n>',
    attribute: 'maxAttempts',
    help: 'ceiling on answered agent calls per suggestion',
  },
  maxRepairs: {
    flags: '--max-repairs <n>',
    attribute: 'maxRepairs',
    help: 'stop after this many repaired suggestions; 0 = no limit',
  },
  agentJobs: {
    flags: '--agent-jobs <n>',
    attribute: 'agentJobs',
    help: 'suggestions repaired at the same time (agent calls in flight); 1 = one after another',
  },
  resume: {
    flags: '--resume',
    attribute: 'resume',
    help: 'continue the most recent unfinished run of this .discopop without asking again what it asked',
  },
  agentErrorRetries: {
    flags: '--agent-error-retries <k>',
    attribute: 'agentErrorRetries',
    help: 'extra calls per suggestion when a call gets no answer',
  },
  connection: {
    flags: '--connection <name>',
    attribute: 'connection',
    help: 'a connection of the LLM configuration',
    absent: 'the only one defined',
  },
  backend: {
    flags: '--backend <name>',
    attribute: 'backend',
    help: 'opencode, claude, builtin, or a descriptor in backends/',
    absent: 'from the connection',
  },
  model: { flags: '--model <id>', attribute: 'model', help: "the backend's model id", absent: 'from the connection' },
  agentTimeoutS: { flags: '--agent-timeout <s>', attribute: 'agentTimeout', help: 'seconds one agent call may take' },
  maxCostUsd: {
    flags: '--max-cost <usd>',
    attribute: 'maxCost',
    help: 'stop agent calls once the reported cost of this run reaches it',
  },
  strict: {
    flags: '--strict',
    attribute: 'strict',
    help: 'refuse candidates that remove a reduction or privatizing clause or change non-directive lines',
  },
  checkRun: {
    flags: '--check-run [scope]',
    shown: '--check-run [all]',
    attribute: 'checkRun',
    help: "check 7: run each candidate with the configuration's execute.sh at 1 and N threads against the sequential build; all = also run the suggestions that build as generated",
    absent: 'off',
  },
  checkRaces: {
    flags: '--check-races [scope]',
    shown: '--check-races [all]',
    attribute: 'checkRaces',
    help: 'build each accepted candidate with clang -fsanitize=thread (Archer) and run it once at N threads; a race in its parallel region rejects it; all = also check the suggestions that build as generated',
    absent: 'off',
  },
  raceCc: {
    flags: '--race-cc <clang>',
    attribute: 'raceCc',
    help: "the clang of --check-races' build (clang-19, a path); clang++ is taken beside it",
    absent:
      "the project's compiler when it is clang, else the newest clang-N on PATH that links with -fsanitize=thread",
  },
  runThreads: {
    flags: '--run-threads <n>',
    attribute: 'runThreads',
    help: 'OMP_NUM_THREADS of the N-thread runs of --check-run and of the --check-races run',
    absent: 'max(2, cores / 2)',
  },
  runRepeats: {
    flags: '--run-repeats <k>',
    attribute: 'runRepeats',
    help: 'N-thread runs per candidate (races are intermittent)',
  },
  runTolerance: {
    flags: '--run-tolerance <r>',
    attribute: 'runTolerance',
    help: 'relative tolerance for numbers in the compared output; integers and text exact',
    absent: '1e-6',
  },
  runTimeoutS: {
    flags: '--run-timeout <s>',
    attribute: 'runTimeout',
    help: `seconds one run of --check-run may take (a --check-races run: ${RACE_SLOWDOWN} × that)`,
    absent: `${RUN_TIMEOUT_FACTOR} × the sequential run, at least ${RUN_TIMEOUT_FLOOR_S}`,
  },
  llmConfigPath: {
    flags: '--llm-config <path>',
    attribute: 'llmConfig',
    help: 'LLM configuration',
    absent: `$${LLM_CONFIG_ENV}, else <dot-dp-path>/patch_repair/llm_config.json`,
  },
  promptDir: {
    flags: '--prompt-dir <dir>',
    attribute: 'promptDir',
    help: 'prompt templates to use instead of the built-in ones',
  },
  contextLines: {
    flags: '--context-lines <n>',
    attribute: 'contextLines',
    help: 'source lines of context around each patched region in a prompt',
  },
  maxErrorChars: {
    flags: '--max-error-chars <n>',
    attribute: 'maxErrorChars',
    help: 'most characters of compiler diagnostics in one prompt',
  },
  maxPromptChars: {
    flags: '--max-prompt-chars <n>',
    attribute: 'maxPromptChars',
    help: 'most characters of a whole prompt',
  },
  builtin: {
    flags: '--no-builtin',
    attribute: 'builtin',
    help: 'skip the built-in repairer; send every failing suggestion to the agent',
  },
  mode: [
    {
      flags: '--discover-only',
      attribute: 'discoverOnly',
      help: 'preflight and discovery only: no agent call, nothing written but the results',
    },
    { flags: '--dry-run', attribute: 'dryRun', help: 'run the whole pipeline but leave patch_generator/ as it was' },
    {
      flags: '--restore',
      attribute: 'restore',
      help: 'put back the patch sets backed up by earlier repairs, and exit',
    },
  ],
  log: { flags: '--log <level>', attribute: 'log', help: LOG_LEVELS.join(', ') },
  writeLog: {
    flags: '--write-log',
    attribute: 'writeLog',
    help: 'also write the log to patch_repair/patch_repair.log',
  },
  progressLines: {
    flags: '--progress-lines',
    attribute: 'progressLines',
    help: "print DiscoPoP's @@PR_PROGRESS <json> event lines on stdout, for DiscoPoP's Patch Repair tab (off: a terminal stays readable)",
  },
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
  /** true for a bare --check-races, the word after it otherwise. */
  checkRaces?: boolean | string;
  raceCc?: string;
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
  progressLines?: boolean;
}
