// Finish: the records become results.json, the summary is printed, and the exit code is chosen.
import { EXIT_CODES } from '../errors.js';
import { faultPoint } from '../fault.js';
import { renderSummary } from '../report/summary.js';
import { finishedResults, runFromEvents } from '../formats/run-fold.js';
import { unfinishedRecord, unrepairedRecord, withRunCheck, type AgentIdentity } from '../formats/suggestion-records.js';
import type { NotConsidered, RunRecord, SuggestionRecord, Workspaces } from '../formats/results.js';
import type { RunOptions } from '../formats/run-options.js';
import { writeResults } from '../store/index.js';
import { emitFinished } from './records.js';
import type { Preflight } from './preflight.js';
import type { RunContext } from './session.js';

/**
 * Writes results.json and prints the summary, from the run's events: how the run ended (an `ended`
 * event: interrupted, refused, the cluster), how the agent stopped, and the records. A run that
 * ended early records every suggestion it did not finish as skipped, so results.json always has
 * one record per considered suggestion.
 */
export async function finish(
  context: RunContext,
  scope: Pick<Preflight, 'considered' | 'notConsidered' | 'repairedEarlier'>,
): Promise<number> {
  const { options, emit, reporter } = context;
  const suggestions: SuggestionRecord[] = [];
  const run = runFromEvents(context.events);
  const unfinishedReason = run.ended && EXIT_CODES[run.ended.reason].unfinished;
  const refused = run.ended?.reason === 'refused' || run.ended?.reason === 'agentUnavailable';
  for (const suggestion of scope.considered) {
    const known = run.records.get(suggestion.id);
    if (known) {
      suggestions.push(known);
      continue;
    }
    const build = run.builds.get(suggestion.id)?.build ?? null;
    // A refused run's builds prove nothing (the probe compiled, the cluster failed them): none is kept.
    const record = refused
      ? unrepairedRecord(suggestion, build, { status: 'skipped', reason: unfinishedReason })
      : unfinishedRecord(suggestion, build, {
          reason: unfinishedReason,
          repairedEarlier: scope.repairedEarlier.has(suggestion.id),
          discoverOnly: options.mode === 'discover-only',
        });
    // Nothing of a refused run's suggestions is under way, and a build that finished settled its
    // suggestion: each is finished, and show lists it so. Either way the record is completed once.
    suggestions.push(
      refused || record.status !== 'skipped' ? emitFinished(context, record) : withRunCheck(record, options),
    );
  }
  const base = runRecord(context, {
    identity: run.identity,
    workspaces: run.workspaces,
    resumedFrom: run.resumedFrom,
    notConsidered: scope.notConsidered,
  });
  const { results, exitCode } = finishedResults(base, suggestions, run, {
    funnel: context.funnel.result(),
    finished: new Date().toISOString(),
  });
  await context.saved();
  faultPoint('pipeline.before-results');
  await writeResults(options.dotDir, results);
  faultPoint('pipeline.after-results');
  emit({ type: 'run-finished', run: results.run });
  if (!refused)
    reporter.print(`\n${renderSummary(results, reporter.width === undefined ? {} : { width: reporter.width })}`);
  return exitCode;
}

export function runRecord(
  context: Pick<RunContext, 'options' | 'runId' | 'started'>,
  o: {
    identity: AgentIdentity;
    workspaces?: Workspaces | null;
    resumedFrom: string | null;
    notConsidered: NotConsidered[];
  },
): RunRecord {
  const { options } = context;
  const { workspaces } = o;
  return {
    id: context.runId,
    started: context.started,
    finished: null,
    mode: options.mode === 'restore' ? 'repair' : options.mode,
    dot_discopop: options.dotDir,
    config: options.config,
    backend: o.identity.backend,
    model: o.identity.model,
    options: recordedOptions(options),
    counts: { ok: 0, repaired: 0, failed: 0, not_applied: 0, agent_unreachable: 0, skipped: 0 },
    endpoint_down: false,
    cost_usd: null,
    input_tokens: null,
    output_tokens: null,
    funnel: [],
    exit_code: null,
    resumed_from: o.resumedFrom,
    openmp_probe: null,
    not_considered: o.notConsidered,
    run_reference: null,
    ...(workspaces && { workspaces }),
  };
}

/** The agent's environment may hold what only the agent should see: its names are recorded, never its values. */
function recordedOptions(options: RunOptions): Record<string, unknown> {
  const { agent, notices: _said, ...rest } = options;
  const { env, ...settings } = agent;
  return { ...rest, agent: { ...settings, ...(env !== undefined && { env: Object.keys(env) }) } };
}
