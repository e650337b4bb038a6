// The records of a run's suggestions as results.json keeps them, each made once from what the run
// learnt of it (no patch, builds, repaired or not, unfinished) and never changed after: pure.
import { seconds, unappliedStatus, withRegenerateHint } from './statuses.js';
import type { RepairOutcome } from './outcome.js';
import type { RunOptions } from './run-options.js';
import {
  RECORDED_DIAGNOSTICS,
  type RecordedDiagnostic,
  type ReasonCode,
  type RunCheck,
  type SuggestionRecord,
} from './results.js';
import { isBuildFailure, type BuildResult, type Diagnostic, type Suggestion } from './types.js';

export interface AgentIdentity {
  backend: string | null;
  model: string | null;
}

function baseRecord(suggestion: Suggestion): SuggestionRecord {
  return {
    id: suggestion.id,
    status: 'skipped',
    written: false,
    hotspot: suggestion.hotspot,
    pattern_type: suggestion.pattern?.type ?? null,
    files: suggestion.files.map((file) => file.fileId),
    changed_files: [],
    attempts: 0,
    unanswered: 0,
    builtin: { tries: 0, accepted: false, declined: null },
    backend: null,
    model: null,
    accepted_attempt: null,
    first_error: null,
    error_class: null,
    reason: null,
    reason_code: null,
    repaired_earlier: false,
    clause_changes: [],
    non_directive_lines_changed: false,
    may_race: [],
    input_tokens: null,
    output_tokens: null,
    cost_usd: null,
    builtin_rule: null,
    written_files: [],
    backup: null,
    diagnostic_count: 0,
    diagnostics: [],
    run_check: null,
    race_check: null,
    ignored_files: suggestion.ignoredFiles ?? [],
    duration_s: 0,
  };
}

/** A reason that decides something, and the words shown for it. */
export interface Reason {
  code: ReasonCode;
  words: string;
}

export function noPatchRecord(suggestion: Suggestion): SuggestionRecord {
  return { ...baseRecord(suggestion), status: 'skipped', reason: 'no patch', reason_code: 'no-patch' };
}

export function buildsRecord(suggestion: Suggestion, repairedEarlier: boolean, build?: BuildResult): SuggestionRecord {
  return {
    ...baseRecord(suggestion),
    status: 'ok',
    repaired_earlier: repairedEarlier,
    duration_s: build ? seconds(build.durationMs) : 0,
  };
}

/** A suggestion that gets no repair: --discover-only, --max-repairs, an interrupt (null build: not built yet). */
export function unrepairedRecord(
  suggestion: Suggestion,
  build: BuildResult | null,
  o: { status: 'failed' | 'skipped'; reason: Reason | null },
): SuggestionRecord {
  const status = unappliedStatus(build, o.status);
  const words = build ? staticCheckReason(build, o.reason?.words ?? null) : (o.reason?.words ?? null);
  return {
    ...baseRecord(suggestion),
    ...(build ? { ...failure(build), duration_s: seconds(build.durationMs) } : {}),
    status,
    reason: withRegenerateHint(words, status),
    reason_code: o.reason?.code ?? null,
  };
}

/**
 * A build the compiler passed and the static collapse check failed: the reason says so first,
 * naming what stands between the loops, since no compiler error explains the status.
 */
function staticCheckReason(build: BuildResult, reason: string | null): string | null {
  if (build.failedAt !== 'static-check') return reason;
  const finding = `the build passed, but ${build.firstError ?? 'the static check failed'}`;
  return reason === null ? finding : `${finding}; ${reason}`;
}

export function outcomeRecord(
  suggestion: Suggestion,
  build: BuildResult,
  outcome: RepairOutcome,
  o: AgentIdentity & { repairMs: number },
): SuggestionRecord {
  const usedAgent = outcome.calls > 0;
  const common = {
    ...baseRecord(suggestion),
    ...failure(build),
    duration_s: seconds(build.durationMs + o.repairMs),
    attempts: outcome.calls,
    unanswered: outcome.unanswered,
    builtin: outcome.builtin,
    backend: usedAgent ? o.backend : outcome.builtin.tries > 0 ? 'builtin' : null,
    model: usedAgent ? o.model : null,
    input_tokens: outcome.usage.inputTokens,
    output_tokens: outcome.usage.outputTokens,
    cost_usd: outcome.usage.costUsd,
    run_check: outcome.runCheck,
    race_check: outcome.raceCheck,
  };
  if (outcome.status === 'repaired') {
    return {
      ...common,
      // Verified; `written` turns true once the write-back put it in place (never under --dry-run).
      status: 'repaired',
      backend: outcome.tier === 'builtin' ? 'builtin' : o.backend,
      model: outcome.tier === 'builtin' ? null : o.model,
      changed_files: outcome.changedFiles,
      accepted_attempt: outcome.acceptedAttempt,
      builtin_rule: outcome.builtinRule,
      clause_changes: outcome.clauseChanges,
      non_directive_lines_changed: outcome.nonDirectiveLinesChanged,
      may_race: outcome.mayRace,
    };
  }
  const status = unappliedStatus(build, outcome.status);
  return {
    ...common,
    status,
    reason: withRegenerateHint(staticCheckReason(build, outcome.reason), status),
    reason_code: outcome.reasonCode,
  };
}

function failure(
  build: BuildResult,
): Pick<SuggestionRecord, 'first_error' | 'error_class' | 'diagnostic_count' | 'diagnostics'> {
  const failing = build.diagnostics.filter(isBuildFailure);
  return {
    first_error: build.firstError ?? null,
    error_class: build.errorClass ?? 'other',
    diagnostic_count: failing.length,
    diagnostics: failing.slice(0, RECORDED_DIAGNOSTICS).map(recordedDiagnostic),
  };
}

function recordedDiagnostic(d: Diagnostic): RecordedDiagnostic {
  return {
    file: d.file,
    file_id: d.fileId ?? null,
    line: d.line ?? null,
    column: d.column ?? null,
    severity: d.severity,
    message: d.message,
    error_class: d.errorClass,
  };
}

/** A suggestion whose generated patch set does not build: the repair stage's work. */
export interface Failing {
  suggestion: Suggestion;
  build: BuildResult;
}

/**
 * What discovery settles of the suggestions not finished yet: no patch, or builds (a record now;
 * with --check-run all, `held` until it ran); the rest fail and go to the repair stage.
 */
export function settledByDiscovery(
  considered: readonly Suggestion[],
  builds: ReadonlyMap<string, BuildResult>,
  o: { finished: ReadonlySet<string>; repairedEarlier: ReadonlySet<string>; runsGenerated: boolean },
): { records: SuggestionRecord[]; held: SuggestionRecord[]; failing: Failing[] } {
  const settled = { records: [] as SuggestionRecord[], held: [] as SuggestionRecord[], failing: [] as Failing[] };
  for (const suggestion of considered) {
    if (o.finished.has(suggestion.id)) continue;
    const build = builds.get(suggestion.id);
    if (!build) settled.records.push(noPatchRecord(suggestion));
    else if (!build.ok) settled.failing.push({ suggestion, build });
    else
      (o.runsGenerated ? settled.held : settled.records).push(
        buildsRecord(suggestion, o.repairedEarlier.has(suggestion.id), build),
      );
  }
  return settled;
}

function notRun(options: Pick<RunOptions, 'runThreads' | 'runRepeats'>, why: string | null): RunCheck {
  return {
    threads: options.runThreads,
    repeats: options.runRepeats,
    verdict: 'not-run',
    first_difference: why,
    validate: null,
  };
}

/** With --check-run every record says whether it ran; when it did not, its status says why. */
export function withRunCheck(
  record: SuggestionRecord,
  options: Pick<RunOptions, 'checkRun' | 'runThreads' | 'runRepeats'>,
): SuggestionRecord {
  return options.checkRun !== 'off' && record.run_check === null
    ? { ...record, run_check: notRun(options, null) }
    : record;
}

/**
 * The record of a suggestion the run did not finish, for `reason` (interrupted, …): one whose
 * discovery build finished keeps what that build settled (it builds; under --discover-only, it
 * fails), every other one is skipped.
 */
export function unfinishedRecord(
  suggestion: Suggestion,
  build: BuildResult | null,
  o: { reason: Reason | null; repairedEarlier: boolean; discoverOnly: boolean },
): SuggestionRecord {
  if (build?.ok) return buildsRecord(suggestion, o.repairedEarlier, build);
  if (build && o.discoverOnly) return unrepairedRecord(suggestion, build, { status: 'failed', reason: null });
  return unrepairedRecord(suggestion, build, { status: 'skipped', reason: o.reason });
}
