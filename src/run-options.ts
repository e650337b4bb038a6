// The one validated shape every stage reads its settings from (options.md). src/options.ts builds
// it from the command line and llm_config.json; nothing else parses flags.
import type { Hotness } from './types.js';

export type LogLevel = 'DEBUG' | 'INFO' | 'WARNING' | 'ERROR' | 'CRITICAL';
export type Mode = 'repair' | 'dry-run' | 'discover-only' | 'restore';

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
}

export interface RunOptions {
  mode: Mode;
  dotDir: string;
  config: string;
  hotspotTypes: Hotness[];
  suggestions?: string[];
  threads: number;
  jobs: number;
  workDir: string;
  maxRepairs: number;
  strict: boolean;
  builtin: boolean;
  agent: AgentSettings;
  llmConfigPath: string;
  promptDir?: string;
  contextLines: number;
  maxErrorChars: number;
  maxPromptChars: number;
  log: LogLevel;
  writeLog: boolean;
  /** Seconds one build (patch + compile.sh) may take. */
  buildTimeoutS: number;
  /** Where builds run: here, or each as a Slurm job step. */
  launcher: 'local' | 'slurm';
  /** Extra srun arguments, already split into words. */
  launcherArgs: string[];
}
