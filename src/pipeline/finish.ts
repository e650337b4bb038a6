// Finish: the records become results.json, the summary is printed, and the exit code is chosen.
import type { WorkspacePlacement } from '../build/index.js';
import { faultPoint } from '../fault.js';
import { renderSummary } from '../report/summary.js';
import { countStatuses, exitCodeFor, isFinal, unrepairedRecord, usageTotals, type AgentIdentity } from '../formats/run-records.js';
import type { ResultsFile, RunRecord } from '../formats/results.js';
import type { RunOptions } from '../formats/run-options.js';
import { writeResults } from '../store/index.js';
import type { RunContext } from './session.js';
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
  o: { refused: boolean } = { refused: false },
): Promise<number> {
  const { options, emit, reporter } = context;
  const suggestions = tally.considered.map((suggestion) => {
    const known = tally.records.get(suggestion.id);
    if (known) return known;
    const record = tally.withRunCheck(unrepairedRecord(suggestion, tally.builds.get(suggestion.id) ?? null, { status: 'skipped', reason: unfinishedReason }));
    // Nothing of a refused run's suggestions is under way: each is settled, and show lists it so.
    if (o.refused) tally.finish(record);
    return record;
  });
  const results: ResultsFile = {
    version: 1,
    run: { ...runRecord(context, { identity: tally.identity, placement: tally.placement(), resumedFrom: tally.resumedFrom }), openmp_probe: tally.probe, run_reference: tally.runReference },
    suggestions,
  };
  const exitCode = interruptExit ?? exitCodeFor(results, { fatalAgentError: tally.budget.fatal !== null });
  results.run = {
    ...results.run,
    finished: new Date().toISOString(),
    counts: countStatuses(suggestions),
    endpoint_down: tally.budget.endpointDown,
    ...usageTotals(suggestions),
    funnel: context.funnel.result(),
    exit_code: exitCode,
  };
  if (tally.state) {
    tally.state.state.complete = interruptExit === null && suggestions.every(isFinal);
    await tally.state.save();
  }
  faultPoint('pipeline.before-results');
  await writeResults(options.dotDir, results);
  faultPoint('pipeline.after-results');
  emit({ type: 'run-finished', run: results.run });
  if (!o.refused) reporter.print(`\n${renderSummary(results)}`);
  return exitCode;
}

/** At most this many path-holding outputs are named in results.json; the count says how many there are. */
const RECORDED_PATH_FILES = 10;

export function runRecord(
  context: Pick<RunContext, 'options' | 'runId' | 'started'>,
  o: { identity: AgentIdentity; placement?: WorkspacePlacement | undefined; resumedFrom: string | null },
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
    run_reference: null,
    ...(workspaces && { workspaces }),
  };
}

function recordedOptions(options: RunOptions): Record<string, unknown> {
  const { agent, ...rest } = options;
  return { ...rest, agent: { ...agent } };
}
