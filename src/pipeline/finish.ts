// Finish: the records become results.json, the summary is printed, and the exit code is chosen.
import type { WorkspacePlacement } from '../build/index.js';
import { faultPoint } from '../fault.js';
import { renderSummary } from '../report/summary.js';
import { finishedResults, isFinal, runFromEvents, unrepairedRecord, type AgentIdentity } from '../formats/run-records.js';
import type { NotConsidered, RunRecord, SuggestionRecord } from '../formats/results.js';
import type { RunOptions } from '../formats/run-options.js';
import { writeResults } from '../store/index.js';
import type { RunContext } from './session.js';
import type { AgentEnd } from './repair.js';
import type { RunTally } from './tally.js';

/**
 * Writes results.json and prints the summary. An interrupted run records every suggestion it
 * did not finish as skipped, so results.json always has one record per considered suggestion.
 */
export async function finish(
  context: RunContext,
  tally: RunTally,
  interruptExit: number | null,
  unfinishedReason: string | null,
  o: { agent: AgentEnd; refused?: boolean },
): Promise<number> {
  const { options, emit, reporter } = context;
  const suggestions: SuggestionRecord[] = [];
  const { records, probe, runReference } = runFromEvents(context.events);
  for (const suggestion of tally.considered) {
    const known = records.get(suggestion.id);
    if (known) {
      suggestions.push(known);
      continue;
    }
    // A refused run's builds prove nothing (the probe compiled, the cluster failed them): none is kept.
    const record = tally.withRunCheck(
      o.refused
        ? unrepairedRecord(suggestion, tally.builds.get(suggestion.id) ?? null, { status: 'skipped', reason: unfinishedReason })
        : tally.unfinishedRecord(suggestion, unfinishedReason),
    );
    // Nothing of a refused run's suggestions is under way, and a build that finished settled its
    // suggestion: each is finished, and show lists it so.
    if (o.refused || record.status !== 'skipped') await tally.finish(record);
    suggestions.push(record);
  }
  const base = runRecord(context, { identity: tally.identity, placement: tally.placement(), resumedFrom: tally.resumedFrom, notConsidered: tally.notConsidered });
  const { results, exitCode } = finishedResults(base, suggestions, {
    funnel: context.funnel.result(),
    probe,
    runReference,
    finished: new Date().toISOString(),
    endpointDown: o.agent.endpointDown,
    fatalAgentError: o.agent.fatal,
    interruptExit,
  });
  if (tally.state) {
    tally.state.state.complete = interruptExit === null && suggestions.every(isFinal);
    await tally.state.save();
  }
  faultPoint('pipeline.before-results');
  await writeResults(options.dotDir, results);
  faultPoint('pipeline.after-results');
  emit({ type: 'run-finished', run: results.run });
  if (!o.refused) reporter.print(`\n${renderSummary(results, reporter.width === undefined ? {} : { width: reporter.width })}`);
  return exitCode;
}

/** At most this many path-holding outputs are named in results.json; the count says how many there are. */
const RECORDED_PATH_FILES = 10;

export function runRecord(
  context: Pick<RunContext, 'options' | 'runId' | 'started'>,
  o: { identity: AgentIdentity; placement?: WorkspacePlacement | undefined; resumedFrom: string | null; notConsidered: NotConsidered[] },
): RunRecord {
  const { options } = context;
  const { placement } = o;
  const workspaces = placement && {
    count: placement.workspaces,
    reference_outputs: placement.outputs,
    reference_builds: placement.referenceBuilds,
    path_files: placement.pathFiles.slice(0, RECORDED_PATH_FILES),
    path_file_count: placement.pathFiles.length,
  };
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
  const { agent, ...rest } = options;
  const { env, ...settings } = agent;
  return { ...rest, agent: { ...settings, ...(env !== undefined && { env: Object.keys(env) }) } };
}
