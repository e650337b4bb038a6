// `patch-repair show [id]`: the last run redisplayed from progress.jsonl, and one suggestion's
// attempts from its transcripts. Reads only; never builds or calls an agent.
import { isVerifiedRepair } from '../formats/statuses.js';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { readAttemptsIn, type StoredAttempt } from '../store/index.js';
import { safeName } from '../store/paths.js';
import { listRuns, runFolder, type ListedRun } from './run-folder.js';
import { changedSince, type SinceKind } from './since.js';
import type { RunRecord, SuggestionRecord } from '../formats/results.js';
import { candidateOf } from './candidate.js';
import { describeProbe } from './event-line.js';
import { agentLabel, replayRun, type ReplayedRun } from './run-replay.js';
import { describeWeakening } from '../repair/checks/strict.js';
import { pairText } from '../repair/checks/races.js';
import { raceVerdictLine } from './races.js';
import { validateText } from './run-check-text.js';
import { renderSummary, usageLine } from './summary.js';
import { type Env, isInteractive, type OutputStream, paintDiff, painter, terminalWidth } from './terminal.js';

export interface ShowOptions {
  dotDir: string;
  id?: string;
  /** --run <id>: a run in history/ instead of the last one. */
  run?: string;
  /** --runs: list the runs instead. */
  runs?: boolean;
  stream?: OutputStream;
  env?: Env;
}

export async function show(o: ShowOptions): Promise<number> {
  const stream = o.stream ?? process.stdout;
  const paint = painter(isInteractive(stream, o.env ?? process.env));
  if (o.runs) {
    stream.write(`${renderRunList(await listRuns(o.dotDir))}\n`);
    return 0;
  }
  const folder = await runFolder(o.dotDir, o.run);
  const replay = await replayRun(o.dotDir, folder.dir);
  const since = await changedSince(o.dotDir, replay.events, replay.results.run.started);
  const { id } = o;
  // Transcripts are read only for an id the run knows, so any other string is a usage error, never a path.
  const known =
    id !== undefined && (replay.results.suggestions.some((r) => r.id === id) || replay.unfinished.includes(id));
  const attempts = known ? await readAttemptsIn(join(folder.dir, 'attempts', safeName(id, 'suggestion id'))) : [];
  const text =
    id === undefined
      ? renderRun(replay, folder.dir, since, terminalWidth(stream))
      : renderSuggestion({ replay, id, runDir: folder.dir, attempts, paint, since: since.get(id) ?? null });
  stream.write(`${text}\n`);
  return 0;
}

/** One line per run: id, start, mode, whether it finished, and its counts per status. */
function renderRunList(runs: readonly ListedRun[]): string {
  if (runs.length === 0) return 'No runs recorded.';
  return runs
    .map((run) => {
      const counts = Object.entries(run.counts)
        .filter(([, n]) => n > 0)
        .map(([status, n]) => `${status} ${n}`)
        .join(', ');
      const where = run.folderName === null ? ' (last run)' : '';
      return `${run.id}  ${run.started}  ${run.mode}${run.finished ? '' : ' (did not finish)'}  ${counts || 'no suggestion'}${where}`;
    })
    .join('\n');
}

/** The run header, a blank line, then the summary exactly as the live run printed it. */
/** `width`: the terminal's, when the table must fit it (renderSummary). */
export function renderRun(
  replay: ReplayedRun,
  runDir: string,
  since: ReadonlyMap<string, SinceKind> = new Map(),
  width?: number,
): string {
  const lines = [...runHeader(replay, runDir), '', renderSummary(replay.results, width === undefined ? {} : { width })];
  if (replay.unfinished.length > 0)
    lines.push(`Not finished: ${replay.unfinished.join(', ')} (the run ended before their results were recorded)`);
  const moved = replay.results.suggestions.flatMap((r) => (since.has(r.id) ? [`  ${r.id}: ${since.get(r.id)}`] : []));
  if (moved.length > 0) lines.push('Since this run (patch_generator/ no longer holds what it wrote):', ...moved);
  return lines.join('\n');
}

/** `runDir`: the folder of the run's progress.jsonl (patch_repair/ or history/<id>/). */
export function runHeader(replay: ReplayedRun, runDir: string): string[] {
  const { run } = replay.results;
  const label = agentLabel(replay.results);
  const agent = label ? `, ${label}` : '';
  const first = `Run ${run.id} (${run.mode}${agent}), started ${run.started}`;
  const lines = [replay.finished ? `${first}, finished ${run.finished}, exit code ${run.exit_code}` : first];
  if (run.written_by === 'discopop_patch_repair')
    lines.push(
      `Written by DiscoPoP's own discopop_patch_repair: read from its results.json (run ${run.id} is named after when that file was written)`,
    );
  if (run.openmp_probe) lines.push(describeProbe(run.openmp_probe));
  if (!replay.finished) {
    const torn = replay.truncated ? ', its last line cut off' : '';
    lines.push(
      `The run did not finish: ${join(runDir, 'progress.jsonl')} ends at ${replay.lastEventAt}${torn}; shown up to there.`,
    );
  }
  const placement = workspacesLine(run);
  if (placement) lines.push(placement);
  return lines;
}

/** Which way the build workspaces got their reference state: copied outputs, or a reference build each. */
export function workspacesLine(run: RunRecord): string | null {
  const w = run.workspaces;
  if (!w) return null;
  if (w.reference_outputs === 'copied') {
    return `Workspaces: ${w.count}, each started from copies of the reference build's outputs (they hold no workspace path)`;
  }
  const more = w.path_file_count > 1 ? ` and ${w.path_file_count - 1} more` : '';
  return `Workspaces: ${w.count}, ${w.reference_builds} reference builds: the reference build's outputs hold the absolute path of the folder they were built in (${w.path_files[0] ?? '?'}${more}), so every workspace ran its own`;
}

interface SuggestionView {
  replay: ReplayedRun;
  id: string;
  runDir: string;
  attempts: StoredAttempt[];
  paint: ReturnType<typeof painter>;
  /** What became of this run's write-back of the suggestion, when the patch set moved on. */
  since: SinceKind | null;
}

export function renderSuggestion(v: SuggestionView): string {
  const record = v.replay.results.suggestions.find((r) => r.id === v.id);
  const lines = runHeader(v.replay, v.runDir);
  if (!record && !v.replay.unfinished.includes(v.id)) {
    const known = [...v.replay.results.suggestions.map((r) => r.id), ...v.replay.unfinished];
    throw new UsageError(
      `${join(v.runDir, 'progress.jsonl')}: suggestion ${v.id}: not considered by this run (it considered ${known.join(', ') || 'none'})`,
    );
  }
  lines.push('');
  lines.push(
    record
      ? suggestionLine(record, v.paint)
      : `Suggestion ${v.id}: did not finish (the run ended while it was being worked on)`,
  );
  if (v.since)
    lines.push(`Patch set on disk: ${v.since} (patch_generator/${v.id}/ no longer holds what this run wrote)`);
  if (record?.first_error) lines.push(`First error (${record.error_class ?? 'other'}): ${record.first_error}`);
  if (record?.reason) lines.push(`Reason: ${record.reason}`);
  const runs = record?.run_check;
  if (runs && runs.verdict !== 'not-run') {
    const verdict = `Runs (--check-run, execute.sh at 1 and ${runs.threads} threads, ${runs.repeats} run(s) at ${runs.threads}): ${runs.verdict}`;
    lines.push(runs.verdict === 'same' ? verdict : v.paint('red', `${verdict}: ${runs.first_difference ?? ''}`));
    const validated = validateText(runs);
    if (validated) lines.push(`  ${validated}`);
  }
  const races = record?.race_check;
  if (races)
    lines.push(
      races.verdict === 'clean' || races.verdict === 'not-run'
        ? raceVerdictLine(races)
        : v.paint('red', raceVerdictLine(races)),
    );
  for (const report of races?.reports ?? []) lines.push(`  ${pairText(report)}`);
  const weakening = record?.may_race ?? [];
  if (weakening.length > 0) {
    lines.push(
      v.paint(
        'red',
        `May race: the repair ${weakening.map(describeWeakening).join('; ')}, which the compiler had accepted there; check that the loop is still correct (--strict refuses such repairs)`,
      ),
    );
  }
  lines.push('');
  if (v.attempts.length === 0) lines.push('No repair attempts were recorded.');
  else lines.push('Attempts:', ...v.attempts.flatMap(attemptLines));

  const shown = candidateOf(v.attempts);
  if (shown) {
    const dir = join(v.runDir, 'attempts', v.id, String(shown.attempt), shown.folder);
    lines.push(
      '',
      shown.accepted
        ? `Accepted patch (attempt ${shown.attempt}, ${dir}):`
        : `Last rejected candidate (attempt ${shown.attempt}, ${dir}):`,
    );
    for (const text of shown.patches.values()) lines.push(paintDiff(text.replace(/\n$/, ''), v.paint));
  }
  return lines.join('\n');
}

function suggestionLine(record: SuggestionRecord, paint: ReturnType<typeof painter>): string {
  const color =
    isVerifiedRepair(record) || record.status === 'ok'
      ? 'green'
      : record.status === 'agent_unreachable'
        ? 'magenta'
        : record.status === 'skipped'
          ? 'dim'
          : 'red';
  const facts = [
    `hotspot ${record.hotspot ?? '-'}`,
    record.pattern_type && `pattern ${record.pattern_type}`,
    `files ${record.files.join(', ') || '-'}`,
  ];
  const calls =
    record.unanswered > 0
      ? `${record.attempts} agent call(s), ${record.unanswered} unanswered`
      : `${record.attempts} agent call(s)`;
  const builtin =
    record.builtin.tries > 0 ? `, ${record.builtin.tries} built-in tr${record.builtin.tries === 1 ? 'y' : 'ies'}` : '';
  const usage = usageLine(record);
  return `Suggestion ${record.id}: ${paint(color, record.status)} (${facts.filter(Boolean).join(', ')}; ${calls}${builtin})${usage ? `\n${usage}` : ''}`;
}

function attemptLines(a: StoredAttempt): string[] {
  const v = a.verdict;
  // DiscoPoP's tool writes no verdict.json, only rejection.txt (`<gate>: <detail>`).
  if (!v && a.rejection !== null)
    return [
      `  ${a.attempt}  rejected at ${a.rejection.split(':', 1)[0]} (no verdict.json: DiscoPoP's tool wrote this attempt)`,
      ...indent(a.rejection.slice(a.rejection.indexOf(':') + 1).trim()),
    ];
  if (!v) return [`  ${a.attempt}  no verdict: the run ended during this attempt`];
  const who =
    v.tier === 'builtin' ? `built-in (${v.source})` : `agent, conversation ${v.prompt}, turn ${v.turn} (${v.source})`;
  const head = `  ${a.attempt}  ${who}: `;
  const alternatives = v.candidates.map((c) => {
    const blocks = `block${c.blocks.length === 1 ? '' : 's'} ${c.blocks.join(', ')}`;
    const what = c.accepted ? 'accepted' : c.rejected_by ? `rejected by ${c.rejected_by}` : (c.reason ?? 'not built');
    return `       alternative ${c.candidate} (${blocks}): ${what}`;
  });
  switch (v.outcome) {
    case 'accepted':
      return [
        `${head}accepted${v.candidates.length > 1 ? ` (one of ${v.candidates.length} alternatives)` : ''}`,
        ...alternatives,
      ];
    case 'rejected':
      return [`${head}rejected by ${v.rejected_by ?? 'a check'}`, ...alternatives, ...indent(v.reason)];
    case 'declined':
      return [`${head}declined`, ...indent(v.call_detail ?? v.reason)];
    case 'unanswered':
    case 'fatal':
      return [`${head}${v.outcome} (${v.call_outcome})`, ...indent(v.call_detail)];
  }
}

function indent(text: string | null): string[] {
  return text
    ? text
        .replace(/\n+$/, '')
        .split('\n')
        .map((line) => `       ${line}`)
    : [];
}
