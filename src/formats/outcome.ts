// The values the repair stage hands the pipeline, and what it needs from the build stage and the
// store. The pipeline calls `repairSuggestion(task, deps)` once per failing suggestion and turns
// the outcome into a results.json record; nothing here writes into patch_generator/.
import type { ClauseChange, RaceCheck, ReasonCode, RunCheck } from './results.js';
import type { BuildResult, PatchSet } from './types.js';
import type { AttemptRecord, AttemptPlace } from './attempt.js';
import type { CheckName } from './events.js';

/** One run of the configuration's execute.sh (check 7); its output holds stderr too. */
export interface ProgramRun {
  threads: number;
  ending: 'exited' | 'signaled' | 'timeout';
  exitCode: number | null;
  signal: string | null;
  output: string;
  durationMs: number;
  /** The configuration's validate.sh after this run; null without one, or when execute.sh did not exit 0. */
  validation: ValidationStep | null;
}

/** DiscoPoP's validation step after one execute.sh run: its build when compile_validate.sh makes one, then validate.sh. */
export interface ValidationStep {
  /** The script that ended the step: validate.sh, or the build before it when that failed. */
  script: 'validate.sh' | 'compile_validate.sh' | 'compile.sh';
  builtBy: 'compile_validate.sh' | 'compile.sh';
  ending: 'exited' | 'signaled' | 'timeout';
  exitCode: number | null;
  signal: string | null;
  output: string;
  /** The whole step, build included. */
  durationMs: number;
}

/** Runs execute.sh in a workspace that holds a finished build. */
export interface ProgramRunner {
  /** `env` is set over the script's environment (TSAN_OPTIONS of a --check-races run). */
  run(threads: number, timeoutMs: number, env?: Record<string, string>): Promise<ProgramRun>;
}

/** What verification needs from the build stage (BuildPool): an isolated rebuild of one patch set. */
export interface VerifyBuilder {
  build(id: string, patchSet: PatchSet, purpose: 'discovery' | 'verify'): Promise<BuildResult>;
  /** The same build; when it passed, `then` runs the program in its workspace before that is rolled back. */
  buildThen<T>(
    id: string,
    patchSet: PatchSet,
    purpose: 'discovery' | 'verify',
    then: (program: ProgramRunner) => Promise<T>,
  ): Promise<{ build: BuildResult; ran: T | null }>;
}

/** Where an isolated build's program is, for a run that reads what it leaves (ThreadSanitizer's logs). */
export interface IsolatedBuild {
  workspaceRoot: string;
  /** Lines (1-based) the patch set added or rewrote, by project-relative path. */
  added: ReadonlyMap<string, ReadonlySet<number>>;
  /** A folder of this build's own outside its tree, removed with it. */
  scratch: string;
}

export interface IsolatedBuildRequest {
  /** The workspace's folder under the pool's; unique among builds in flight. */
  folder: string;
  label: string;
  settings: Record<string, string>;
  patchSet: PatchSet;
  /** OMP_NUM_THREADS of compile.sh. */
  threads: number;
}

/** A clean build with other settings in a workspace of its own (BuildPool), for --check-races. */
export interface IsolatedBuilder {
  isolatedBuildThen<T>(
    o: IsolatedBuildRequest,
    then: (program: ProgramRunner, built: IsolatedBuild) => Promise<T>,
  ): Promise<{ build: BuildResult; ran: T | null }>;
}

/** Where every attempt is written (attempts/<id>/<n>/); the store's AttemptStore satisfies it. */
export interface AttemptRecorder {
  /** An answer as soon as it arrives, before verification: a resumed run checks it instead of asking again. */
  writeAnswer(t: AttemptPlace & { id: string; answer: string; usage: UsageTotals }): Promise<void>;
  write(record: AttemptRecord): Promise<void>;
}

/** One attempt a stopped run already made for this suggestion (its attempts/<id>/<n>/), for --resume. */
export interface PriorAttempt extends AttemptPlace {
  /** pending: the answer arrived but its verification never finished. */
  outcome: 'accepted' | 'rejected' | 'declined' | 'unanswered' | 'fatal' | 'pending';
  rejectedBy: CheckName | null;
  /** Why it was rejected, or why the built-in repairer declined. */
  reason: string | null;
  /** Check 7's runs of its candidate, when they ran. */
  runCheck: RunCheck | null;
  /** The race check of its candidate, when it ran. */
  raceCheck: RaceCheck | null;
  /** What the agent CLI reported for the call, so a resumed run's totals equal an uninterrupted run's. */
  usage: UsageTotals;
}

/** The built-in repairer's share of a suggestion (results.json `builtin`). */
export interface BuiltinInfo {
  tries: number;
  accepted: boolean;
  /** Why it declined, or why its answer was rejected; null when it was accepted or not run. */
  declined: string | null;
}

export interface OutcomeCommon {
  /** Agent calls made, answered and unanswered (results.json `attempts`). */
  calls: number;
  unanswered: number;
  builtin: BuiltinInfo;
  /** The first error of the failing generated build (results.json `first_error`). */
  firstError: string | null;
  /** What the agent CLI reported for this suggestion's calls. */
  usage: UsageTotals;
  /**
   * Check 7's runs (--check-run): of the accepted build, else of the last candidate they rejected;
   * null when none ran.
   */
  runCheck: RunCheck | null;
  /** --check-races: of the accepted candidate, else of the last candidate it rejected; null when none ran. */
  raceCheck: RaceCheck | null;
}

/** Sums of what agent calls reported; null while no call reported that figure (unknown, not 0). */
export interface UsageTotals {
  inputTokens: number | null;
  outputTokens: number | null;
  costUsd: number | null;
}

export interface RepairedOutcome extends OutcomeCommon {
  status: 'repaired';
  /** The whole verified patch set: repaired files canonical, untouched files with their generated bytes. */
  canonical: PatchSet;
  /** File ids whose patch differs from the generated one. */
  changedFiles: string[];
  /** Number of the accepted attempt under attempts/<id>/. */
  acceptedAttempt: number;
  tier: 'builtin' | 'agent';
  /** The built-in rules that made the repair, as the accepted attempt's verdict names them; null for an agent's. */
  builtinRule: string | null;
  clauseChanges: ClauseChange[];
  nonDirectiveLinesChanged: boolean;
  /** Clause changes that take a variable out of a reduction or privatization the compiler did not reject. */
  mayRace: ClauseChange[];
  /** The isolated verify build of the accepted set. */
  build: BuildResult;
}

export interface UnrepairedOutcome extends OutcomeCommon {
  /**
   * failed: every attempt was rejected or the budget ran out; agent_unreachable: no answer came back
   * (not a failed repair); skipped: a fatal agent error, the cost limit or an interrupt stopped it.
   */
  status: 'failed' | 'agent_unreachable' | 'skipped';
  reason: string;
  reasonCode: ReasonCode;
}

export type RepairOutcome = RepairedOutcome | UnrepairedOutcome;
