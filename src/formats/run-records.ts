// Pure bookkeeping of a run: a results.json record per considered suggestion, the counts, and the
// exit code that options.md promises.
import { EXIT_CODES } from '../errors.js';
import { seconds, unappliedStatus, withRegenerateHint } from './statuses.js';
export { isVerifiedRepair, seconds } from './statuses.js';
import type { RunEvent } from './events.js';
import type { RunState } from './resume-state.js';
import type { RepairOutcome } from './outcome.js';
import type { RunOptions } from './run-options.js';
import {
  RECORDED_DIAGNOSTICS,
  SUGGESTION_STATUSES,
  type RecordedDiagnostic,
  type ResultsFile,
  type ReasonCode,
  type RunCheck,
  type RunRecord,
  type SuggestionRecord,
  type SuggestionStatus,
  type Workspaces,
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

/** Run totals of what the agent CLIs reported: null where no suggestion's calls reported that figure. */
export function usageTotals(
  records: readonly SuggestionRecord[],
): Pick<ResultsFile['run'], 'input_tokens' | 'output_tokens' | 'cost_usd'> {
  const sum = (key: 'input_tokens' | 'output_tokens' | 'cost_usd') =>
    records.reduce<number | null>((total, record) => (record[key] === null ? total : (total ?? 0) + record[key]), null);
  return { input_tokens: sum('input_tokens'), output_tokens: sum('output_tokens'), cost_usd: sum('cost_usd') };
}

export function countStatuses(records: readonly SuggestionRecord[]): Record<SuggestionStatus, number> {
  const counts = Object.fromEntries(SUGGESTION_STATUSES.map((status) => [status, 0])) as Record<
    SuggestionStatus,
    number
  >;
  for (const record of records) counts[record.status] += 1;
  return counts;
}

/**
 * 0: everything considered builds or was repaired (or would be, under --dry-run); skipped for
 * "no patch" or by --max-repairs included. 1: something failed (a verified repair that could not be
 * written back too), its generated patches do not apply and no repair was verified (not_applied),
 * its agent was unreachable, or it was skipped for another reason (cost limit). 4: a fatal agent
 * error stopped the agent.
 */
export function exitCodeFor(
  results: Pick<ResultsFile, 'suggestions'> & { run: Pick<RunRecord, 'not_considered'> },
  o: { fatalAgentError: boolean },
): number {
  if (o.fatalAgentError) return EXIT_CODES.fatalAgent.code;
  // Suggestions exist but the selection left out every one: nothing was checked, which is no success.
  if (results.suggestions.length === 0 && results.run.not_considered.length > 0) return EXIT_CODES.unfinished.code;
  const unfinished = results.suggestions.some(
    (record) =>
      record.status === 'failed' ||
      record.status === 'agent_unreachable' ||
      record.status === 'not_applied' ||
      (record.status === 'skipped' && !(record.reason_code !== null && SKIPPED_AS_ASKED.has(record.reason_code))),
  );
  return unfinished ? EXIT_CODES.unfinished.code : EXIT_CODES.done.code;
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

/** A discovery build as the run recorded it, with the digest of what it depended on (null: not resumable). */
export interface DiscoveryBuild {
  digest: string | null;
  build: BuildResult;
}

/** What a run's events say of it: the live run's results.json, its run-state.json and `show`'s replay all start here. */
export interface RunFromEvents {
  started: RunRecord | null;
  /** The run-finished record; null while the run goes on, or when it was killed. */
  finished: RunRecord | null;
  /** Every considered suggestion in order, once discovery started. */
  considered: string[] | null;
  /** The last record of each suggestion that finished. */
  records: Map<string, SuggestionRecord>;
  /** Verified repairs about to be written back, by suggestion: each one's record once written. */
  writing: Map<string, SuggestionRecord>;
  /** The discovery build of each suggestion that got one, taken over ones included. */
  builds: Map<string, DiscoveryBuild>;
  identity: AgentIdentity;
  workspaces: Workspaces | null;
  resumedFrom: string | null;
  probe: RunRecord['openmp_probe'];
  runReference: RunRecord['run_reference'];
  /** A signal stopped the run: even with every suggestion finished, it did not end on its own. */
  interrupted: boolean;
}

export function runFromEvents(events: readonly RunEvent[]): RunFromEvents {
  const run: RunFromEvents = {
    started: null,
    finished: null,
    considered: null,
    records: new Map(),
    writing: new Map(),
    builds: new Map(),
    identity: { backend: null, model: null },
    workspaces: null,
    resumedFrom: null,
    probe: null,
    runReference: null,
    interrupted: false,
  };
  for (const event of events) {
    if (event.type === 'run-started') run.started ??= event.run;
    else if (event.type === 'agent-picked') run.identity = { backend: event.backend, model: event.model };
    else if (event.type === 'resumed') run.resumedFrom = event.from;
    else if (event.type === 'workspaces') run.workspaces = event.workspaces;
    else if (event.type === 'discovery-started') run.considered ??= event.suggestions;
    else if (event.type === 'discovered') run.builds.set(event.id, { digest: event.digest, build: event.build });
    else if (event.type === 'writing') run.writing.set(event.record.id, event.record);
    else if (event.type === 'suggestion-finished') run.records.set(event.record.id, event.record);
    else if (event.type === 'openmp-probe') run.probe = event.probe;
    else if (event.type === 'run-reference')
      run.runReference = { seconds: event.seconds, noise_lines: event.noise_lines };
    else if (event.type === 'interrupted') run.interrupted = true;
    else if (event.type === 'run-finished') run.finished = event.run;
  }
  return run;
}

/** The run record a replay shows: the started one with what the events learnt since (agent, workspaces, resumed run). */
export function startedRun(run: RunFromEvents): RunRecord | null {
  if (!run.started) return null;
  const { workspaces } = run;
  return {
    ...run.started,
    backend: run.started.backend ?? run.identity.backend,
    model: run.started.model ?? run.identity.model,
    resumed_from: run.started.resumed_from ?? run.resumedFrom,
    ...(workspaces && { workspaces }),
  };
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

/** The run record over its suggestions' records: counts and usage totals from them, the rest from the events. */
export function runTotals(
  base: RunRecord,
  suggestions: readonly SuggestionRecord[],
  o: Pick<RunFromEvents, 'probe' | 'runReference'> & { funnel: RunRecord['funnel'] },
): RunRecord {
  return {
    ...base,
    counts: countStatuses(suggestions),
    ...usageTotals(suggestions),
    funnel: o.funnel,
    openmp_probe: o.probe,
    run_reference: o.runReference,
  };
}

/**
 * results.json of a run that ends: its totals, when it finished, whether the agent endpoint looked
 * down, and its exit code (an interrupted run's is the interrupt's).
 */
export function finishedResults(
  base: RunRecord,
  suggestions: SuggestionRecord[],
  o: Parameters<typeof runTotals>[2] & {
    finished: string;
    endpointDown: boolean;
    fatalAgentError: boolean;
    interruptExit: number | null;
  },
): { results: ResultsFile; exitCode: number } {
  const exitCode = o.interruptExit ?? exitCodeFor({ run: base, suggestions }, { fatalAgentError: o.fatalAgentError });
  const run = {
    ...runTotals(base, suggestions, o),
    finished: o.finished,
    endpoint_down: o.endpointDown,
    exit_code: exitCode,
  };
  return { results: { version: 1, run, suggestions }, exitCode };
}

/** Skipped suggestions that are no failure of the run: nothing to repair, or --max-repairs asked it. */
const SKIPPED_AS_ASKED: ReadonlySet<ReasonCode> = new Set(['no-patch', 'max-repairs']);

export const MAX_REPAIRS_REASON = '--max-repairs reached';

/** Suggestions in a row that got no answer at all before the endpoint counts as down. */
export const ENDPOINT_DOWN_AFTER = 3;
export const ENDPOINT_DOWN_REASON = `agent unreachable for ${ENDPOINT_DOWN_AFTER} suggestions in a row; no further calls`;

/**
 * A record --resume keeps as it is: the suggestion had its full chance. Not final: skipped for any
 * reason but "no patch" (interrupt, cost limit, --max-repairs, fatal agent error), and
 * agent_unreachable because the circuit breaker stopped all calls rather than its own allowance.
 */
export function isFinal(record: SuggestionRecord): boolean {
  if (record.status === 'skipped') return record.reason_code === 'no-patch';
  if (record.status === 'agent_unreachable') return record.reason_code !== 'endpoint-down';
  return true;
}

/** What a run's run-state.json holds besides its events: who it is and what its builds depend on. */
export type RunStateBase = Pick<RunState, 'version' | 'run_id' | 'mode' | 'tree' | 'environment' | 'outputs'>;

/**
 * run-state.json as a run's events say it: its discovery builds with their digests; the records a
 * resumed run keeps (what discovery settles is settled again by the next discovery, so only repair
 * outcomes), a verified repair from the moment it is about to be written; and whether the run
 * ended on its own with every considered suggestion finished.
 */
export function runStateOf(base: RunStateBase, run: RunFromEvents): RunState {
  const builds: RunState['builds'] = {};
  for (const [id, { digest, build }] of run.builds) if (digest !== null) builds[id] = { digest, build };
  const finished: RunState['finished'] = {};
  for (const [id, record] of run.writing) finished[id] = record;
  for (const [id, record] of run.records) if (isKept(record)) finished[id] = record;
  const complete =
    !run.interrupted &&
    run.considered !== null &&
    run.considered.every((id) => {
      const record = run.records.get(id);
      return record !== undefined && isFinal(record);
    });
  return { ...base, builds, finished, complete };
}

function isKept(record: SuggestionRecord): boolean {
  return isFinal(record) && record.status !== 'ok' && record.reason_code !== 'no-patch';
}
