// What a run's events say of it, folded: the run record, its totals and exit code, which records
// are final, and run-state.json. The live run's results.json, its run-state.json and `show`'s
// replay all read a run through runFromEvents: pure.
import { EXIT_CODES, type EndingReason } from '../errors.js';
import type { RunEvent } from './events.js';
import type { RunState } from './resume-state.js';
import {
  SUGGESTION_STATUSES,
  type RunResults,
  type ReasonCode,
  type RunRecord,
  type SuggestionRecord,
  type SuggestionStatus,
  type Workspaces,
} from './results.js';
import type { AgentIdentity } from './suggestion-records.js';
import type { BuildResult } from './types.js';

/** Run totals of what the agent CLIs reported: null where no suggestion's calls reported that figure. */
export function usageTotals(
  records: readonly SuggestionRecord[],
): Pick<RunResults['run'], 'input_tokens' | 'output_tokens' | 'cost_usd'> {
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
  results: Pick<RunResults, 'suggestions'> & { run: Pick<RunRecord, 'not_considered'> },
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
  /** A fatal agent error stopped every agent call: the run exits 4. */
  fatalAgentError: boolean;
  /** The agent endpoint looked down and no further call was made. */
  endpointDown: boolean;
  /**
   * What ended the run early (a signal, a refusal, the cluster) and its exit code; null for a run
   * that goes on or ended on its own. Even with every suggestion finished, such a run is not complete.
   */
  ended: { reason: EndingReason; exitCode: number } | null;
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
    fatalAgentError: false,
    endpointDown: false,
    ended: null,
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
    else if (event.type === 'agent-stopped') {
      if (event.reason_code === 'fatal-agent') run.fatalAgentError = true;
      else run.endpointDown = true;
    } else if (event.type === 'ended') run.ended ??= { reason: event.reason, exitCode: event.exit_code };
    // Earlier releases wrote `interrupted` where this one writes `ended`.
    else if (event.type === 'interrupted')
      run.ended ??= {
        reason: event.exit_code === EXIT_CODES.SIGTERM.code ? 'SIGTERM' : 'SIGINT',
        exitCode: event.exit_code,
      };
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

/** The run record over its suggestions' records: counts and usage totals from them, the rest from the events. */
export function runTotals(
  base: RunRecord,
  suggestions: readonly SuggestionRecord[],
  run: Pick<RunFromEvents, 'probe' | 'runReference' | 'endpointDown'>,
  funnel: RunRecord['funnel'],
): RunRecord {
  return {
    ...base,
    counts: countStatuses(suggestions),
    ...usageTotals(suggestions),
    funnel,
    openmp_probe: run.probe,
    run_reference: run.runReference,
    endpoint_down: run.endpointDown,
  };
}

/**
 * results.json of a run that ends: its totals, when it finished, and its exit code (that of what
 * ended it early, or else the one its records and a fatal agent error give).
 */
export function finishedResults(
  base: RunRecord,
  suggestions: SuggestionRecord[],
  run: Parameters<typeof runTotals>[2] & Pick<RunFromEvents, 'ended' | 'fatalAgentError'>,
  o: { funnel: RunRecord['funnel']; finished: string },
): { results: RunResults; exitCode: number } {
  const exitCode =
    run.ended?.exitCode ?? exitCodeFor({ run: base, suggestions }, { fatalAgentError: run.fatalAgentError });
  const record = { ...runTotals(base, suggestions, run, o.funnel), finished: o.finished, exit_code: exitCode };
  return { results: { version: 1, run: record, suggestions }, exitCode };
}

/** Skipped suggestions that are no failure of the run: nothing to repair, or --max-repairs asked it. */
const SKIPPED_AS_ASKED: ReadonlySet<ReasonCode> = new Set(['no-patch', 'max-repairs']);

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
    run.ended === null &&
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
