// A run rebuilt from progress.jsonl alone: the same run and suggestion records the live run put in
// its summary, so `show` and the review page print the numbers the run printed. A killed run (no
// run-finished, maybe a torn last line) yields what was recorded up to where the log ends.
import { runFromEvents, runTotals, startedRun } from '../formats/run-fold.js';
import { funnelOf } from './funnel.js';
import type { RunEvent } from '../formats/events.js';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { readDiscopopLog, readEventLogFile, readResultsFile, repairDir } from '../store/index.js';
import type { DiscopopLogLine } from '../formats/discopop-progress.js';
import { type DiscopopRunFacts, parseResultsDocument } from '../formats/results-document.js';
import { exists } from '../store/fs-atomic.js';
import type { RunResults, RunRecord } from '../formats/results.js';
import { UsageError } from '../errors.js';
import { eventLogPath } from '../store/event-log.js';

export interface ReplayedRun {
  /** Records of the suggestions that finished, in the order the run considered them. */
  results: RunResults;
  finished: boolean;
  /** The log's last line was cut off. */
  truncated: boolean;
  /** Considered suggestions without a record: the run ended before they finished. */
  unfinished: string[];
  /** Time of the last event in the log. */
  lastEventAt: string;
  events: RunEvent[];
}

/**
 * `runDir`: the folder holding the run's progress.jsonl; the last run's (patch_repair/) by default.
 * A run DiscoPoP's own tool made (its progress.jsonl, or only its results.json) is read from its
 * results.json.
 */
export async function replayRun(dotDir: string, runDir?: string): Promise<ReplayedRun> {
  const dir = runDir ?? repairDir(dotDir);
  const source = runDir === undefined ? eventLogPath(dotDir) : join(runDir, 'progress.jsonl');
  const discopop = await readDiscopopLog(source);
  if (discopop !== null) return replayDiscopopRun(dotDir, dir, discopop);
  // No log, but a results.json DiscoPoP's tool wrote: the log was removed, or never reached the disk.
  if (!(await exists(source)) && (await writtenByDiscopop(dotDir, dir))) return replayDiscopopRun(dotDir, dir, []);
  const { events, truncated } = await readEventLogFile(source);
  return replayEvents({ events, truncated, source });
}

async function writtenByDiscopop(dotDir: string, dir: string): Promise<boolean> {
  try {
    return (await readResultsFile(join(dir, 'results.json'), { dotDir }))?.run.written_by === 'discopop_patch_repair';
  } catch (error) {
    if (error instanceof UsageError) return false;
    throw error;
  }
}

/** What DiscoPoP's tool recorded: its results.json, or the `suggestion` events of its log when that file is missing. */
async function replayDiscopopRun(dotDir: string, dir: string, lines: DiscopopLogLine[]): Promise<ReplayedRun> {
  const start = lines.find((line) => line.event === 'start');
  const text = (key: string) => (typeof start?.[key] === 'string' ? (start[key] as string) : null);
  const finished = lines.some((line) => line.event === 'done');
  const facts = {
    dryRun: typeof start?.dry_run === 'boolean' ? start.dry_run : null,
    backend: text('backend'),
    model: text('model'),
    finished,
  };
  const path = join(dir, 'results.json');
  const fromFile = await readResultsFile(path, { dotDir, facts });
  const source = join(dir, 'progress.jsonl');
  const results =
    fromFile ??
    fromSuggestionEvents(lines, { dotDir, source, startedAt: (await stat(source)).mtime.toISOString(), ...facts });
  const candidates = Array.isArray(start?.candidates) ? (start.candidates as unknown[]).map(String) : [];
  return {
    results,
    finished,
    truncated: false,
    unfinished: candidates.filter((id) => !results.suggestions.some((r) => r.id === id)),
    lastEventAt: results.run.started,
    events: [],
  };
}

export function replayEvents(o: { events: RunEvent[]; truncated: boolean; source: string }): ReplayedRun {
  const { events } = o;
  const folded = runFromEvents(events);
  const { finished: finishedRun, considered, records } = folded;
  const started = startedRun(folded);
  if (events.length === 0)
    throw new UsageError(`${o.source}: holds no complete event: the run was stopped as it began`);
  if (!started)
    throw new UsageError(`${o.source}: line 1: no run-started event; this is not the log of a patch-repair run`);
  // Suggestions whose discovery never started are not known; those that finished are listed anyway.
  const order = considered ?? [...records.keys()];
  const suggestions = order.flatMap((id) => records.get(id) ?? []);
  // A killed run wrote no run-finished record: its totals are counted from the log as the run would have.
  const writes = started.mode === 'repair';
  const funnel = funnelOf(events, {
    strict: started.options.strict === true,
    writes,
    checkRun: started.options.checkRun === 'repairs' || started.options.checkRun === 'all',
  });
  const run: RunRecord = finishedRun ?? runTotals(started, suggestions, folded, funnel);
  return {
    results: { version: 1, run, suggestions },
    finished: finishedRun !== null,
    truncated: o.truncated,
    unfinished: order.filter((id) => !records.has(id)),
    lastEventAt: events.at(-1)!.t,
    events,
  };
}

/** DiscoPoP's `suggestion` events carry its records whole: the run as far as they go. */
function fromSuggestionEvents(
  lines: DiscopopLogLine[],
  o: DiscopopRunFacts & { dotDir: string; source: string },
): RunResults {
  const suggestions = Object.fromEntries(
    lines.filter((line) => line.event === 'suggestion').map((line) => [String(line.suggestion_id), line]),
  );
  const parsed = parseResultsDocument({ suggestions }, o, o.source);
  if (!parsed.ok) throw new UsageError(parsed.problem);
  return parsed.results;
}

/**
 * The agent of a run for headers: results.json names no backend when no agent was created, e.g.
 * with --backend builtin; the records still say the built-in repairer did the work.
 */
export function agentLabel(results: RunResults): string | null {
  const { backend, model } = results.run;
  if (backend) return model ? `backend ${backend}, model ${model}` : `backend ${backend}`;
  return results.suggestions.some((r) => r.backend === 'builtin') ? 'built-in repairer only' : null;
}
