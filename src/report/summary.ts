// The end-of-run summary, rendered from results.json values alone so that the live run and
// `patch-repair show` print exactly the same text.
import { isVerifiedRepair } from '../formats/statuses.js';
import type { NotConsidered, RunResults, SuggestionRecord, SuggestionStatus } from '../formats/results.js';
import { raceSite, raceSummaryLines } from './races.js';
import { ENDPOINT_DOWN_AFTER } from '../repair/budget.js';
import { funnelLine } from './funnel.js';

export const ENDPOINT_DOWN_NOTE = `The agent endpoint looked down: no calls were made after ${ENDPOINT_DOWN_AFTER} suggestions in a row got no answer.`;

/**
 * `width`: the terminal's columns. Each table row then fits on one screen line, its detail cut
 * with "…" (results.json and `show <id>` have it whole); without it every row is whole.
 */
export function renderSummary(results: RunResults, o: { width?: number } = {}): string {
  const lines: string[] = [];
  const rows = results.suggestions.map(tableRow);
  const header = ['id', 'hotspot', 'files', 'status', 'calls', 'class', 'detail'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const format = (cells: string[]) =>
    fit(
      cells
        .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!)))
        .join('  ')
        .trimEnd(),
      o.width,
    );
  lines.push(format(header));
  for (const row of rows) lines.push(format(row));
  lines.push('', ...countLines(results), ...notConsideredLines(results));
  if (results.run.endpoint_down) lines.push(ENDPOINT_DOWN_NOTE);
  for (const entry of results.run.funnel)
    lines.push(
      funnelLine(entry) +
        (entry.written === null && results.run.mode === 'dry-run' ? ' (--dry-run: nothing written)' : ''),
    );
  const usage = usageLine(results.run);
  if (usage) lines.push(usage);
  const runs = runCheckLine(results);
  if (runs) lines.push(runs);
  lines.push(...raceSummaryLines(results));
  const racy = racyRepairs(results.suggestions);
  if (racy.length > 0) {
    const ids = racy.map((r) => r.id).join(', ');
    lines.push(
      `Repairs that take a variable out of a reduction or privatizing clause the compiler accepted (the loop may now race): ${racy.length} (${ids}); review each with \`patch-repair show <id>\`; --strict refuses such repairs`,
    );
  }
  return lines.join('\n');
}

function fit(line: string, width: number | undefined): string {
  return width === undefined || line.length <= width ? line : `${line.slice(0, Math.max(0, width - 1))}…`;
}

/** One line per status that occurred, each label saying what it counts. */
function countLines(results: RunResults): string[] {
  const records = results.suggestions;
  const discoverOnly = results.run.mode === 'discover-only';
  const count = (status: SuggestionStatus) => results.run.counts[status] ?? 0;
  const earlier = records.filter((r) => r.status === 'ok' && r.repaired_earlier).length;
  const lines: string[] = [];
  const add = (label: string, n: number) => {
    if (n > 0) lines.push(`${label}: ${n}`);
  };
  add('Build as generated', count('ok') - earlier);
  add("Build with an earlier run's repair", earlier);
  const unwritten = records.filter((r) => r.status === 'repaired' && !r.written).length;
  const writeFailed = records.filter((r) => r.status === 'failed' && r.reason_code === 'write-failed').length;
  add('Repaired and written', count('repaired') - unwritten);
  add(results.run.mode === 'dry-run' ? 'Repaired, not written (--dry-run)' : 'Repaired, not written', unwritten);
  add('Repaired, the write-back failed (see the reasons)', writeFailed);
  add(
    discoverOnly ? 'Do not build (--discover-only: no repair tried)' : 'Do not build, not repaired',
    count('failed') - writeFailed,
  );
  add(
    discoverOnly
      ? 'Generated patches do not apply (--discover-only: no repair tried)'
      : 'Generated patches do not apply, not repaired',
    count('not_applied'),
  );
  lines.push(`Agent unreachable: ${count('agent_unreachable')} (no answer; not a failed repair)`);
  const skipped = records.filter((r) => r.status === 'skipped');
  if (count('skipped') > 0) {
    const why = new Map<string, number>();
    for (const record of skipped) {
      const reason = (record.reason ?? 'not finished').split(/ \(|: /)[0]!;
      why.set(reason, (why.get(reason) ?? 0) + 1);
    }
    lines.push(
      `Skipped, not built or not repaired: ${count('skipped')} (${[...why].map(([reason, n]) => `${reason}: ${n}`).join('; ')})`,
    );
  }
  return lines;
}

/** `Not considered: 4 (hotspot NO: 0, 5, 7, 8)`, one group per reason, and what to do when that was every suggestion. */
function notConsideredLines(results: RunResults): string[] {
  const left = results.run.not_considered;
  if (left.length === 0) return [];
  const lines = [`Not considered: ${describeNotConsidered(left)}`];
  if (results.suggestions.length === 0)
    lines.push(
      'No suggestion was considered, so nothing was checked: choose them with -ht (hotspot types) or -s (ids)',
    );
  return lines;
}

/** `4 (hotspot NO: 0, 5, 7, 8)`: how many, then the ids grouped by reason. */
export function describeNotConsidered(left: readonly NotConsidered[]): string {
  const byReason = new Map<string, string[]>();
  for (const { id, reason } of left) byReason.set(reason, [...(byReason.get(reason) ?? []), id]);
  return `${left.length} (${[...byReason].map(([reason, ids]) => `${reason}: ${ids.join(', ')}`).join('; ')})`;
}

/** `Agent usage reported: 1234 input tokens, 567 output tokens, $0.0123`; null when nothing was reported. */
export function usageLine(
  usage: Pick<RunResults['run'], 'input_tokens' | 'output_tokens' | 'cost_usd'>,
): string | null {
  const parts = [
    usage.input_tokens === null ? null : `${usage.input_tokens} input tokens`,
    usage.output_tokens === null ? null : `${usage.output_tokens} output tokens`,
    usage.cost_usd === null ? null : `$${usage.cost_usd.toFixed(4)}`,
  ].filter((part) => part !== null);
  return parts.length === 0 ? null : `Agent usage reported: ${parts.join(', ')}`;
}

/**
 * `Runs the same (--check-run, 2 and 1 threads, 3 runs): 4 repairs; builds as generated but does
 * not run the same: 1 (7)`; null without --check-run.
 */
function runCheckLine(results: RunResults): string | null {
  const checked = results.suggestions.filter((r) => r.run_check !== null);
  const first = checked[0]?.run_check;
  if (!first) return null;
  const ran = (r: SuggestionRecord) => r.run_check !== null && r.run_check.verdict !== 'not-run';
  const repairs = checked.filter((r) => isVerifiedRepair(r) && ran(r)).length;
  const generated = checked.filter((r) => r.status === 'ok' && ran(r));
  const differing = generated.filter((r) => r.run_check!.verdict !== 'same');
  const parts = [`${repairs} repair${repairs === 1 ? '' : 's'}`];
  if (generated.length > 0)
    parts.push(`${generated.length - differing.length} of ${generated.length} that build as generated`);
  const line = `Runs the same (--check-run: execute.sh at 1 and ${first.threads} threads, ${first.repeats} run${first.repeats === 1 ? '' : 's'} at ${first.threads}): ${parts.join('; ')}`;
  if (differing.length === 0) return line;
  return `${line}
Build as generated but do not run the same: ${differing.length} (${differing.map((r) => `${r.id}: ${r.run_check!.verdict}`).join(', ')}); see \`patch-repair show <id>\``;
}

/** Verified repairs that take a reduction or a privatization away: they compile, but may race. */
export function racyRepairs(records: readonly SuggestionRecord[]): SuggestionRecord[] {
  return records.filter((r) => isVerifiedRepair(r) && r.may_race.length > 0);
}

function tableRow(record: SuggestionRecord): string[] {
  return [
    record.id,
    record.hotspot ?? '-',
    record.files.join(',') || '-',
    record.status,
    record.unanswered > 0 ? `${record.attempts} (${record.unanswered} unanswered)` : String(record.attempts),
    record.error_class ?? '-',
    detail(record),
  ];
}

function detail(record: SuggestionRecord): string {
  // A verified repair that could not be written back says why (a dry run has no reason).
  if (record.status === 'failed' && record.reason_code === 'write-failed' && record.reason !== null)
    return record.reason;
  if (isVerifiedRepair(record)) {
    const changes = record.clause_changes.map(describeChange);
    if (record.non_directive_lines_changed) changes.push('non-directive lines changed');
    const by = record.builtin.accepted ? 'built-in' : (record.backend ?? 'agent');
    return `${by}: ${changes.length > 0 ? changes.join('; ') : 'directive moved or reformatted'}`;
  }
  if (record.status === 'ok') {
    const runs = record.run_check;
    if (runs && runs.verdict !== 'same' && runs.verdict !== 'not-run')
      return `does not run the same (${runs.verdict}): ${runs.first_difference ?? ''}`;
    const races = record.race_check;
    if (races && (races.verdict === 'races' || races.verdict === 'races_elsewhere'))
      return `builds as generated, races at ${races.reports.map(raceSite).join('; ')}`;
    return record.repaired_earlier ? 'repaired by an earlier run' : '';
  }
  return record.reason ?? record.first_error ?? '';
}

/** One clause change in a few words: `-d from private`, `depends(in:a) → depend(in:a)`. */
export function describeChange(change: SuggestionRecord['clause_changes'][number]): string {
  switch (change.kind) {
    case 'variable-moved':
      return `${change.variable} ${change.from} → ${change.to}`;
    case 'variable-removed':
      return `-${change.variable} from ${change.clause}`;
    case 'variable-added':
      return `+${change.variable} to ${change.clause}`;
    case 'clause-removed':
      return `-${change.from}`;
    case 'clause-added':
      return `+${change.to}`;
    case 'clause-renamed':
      return `${change.from} → ${change.to}`;
    case 'directive-moved':
      return `directive moved from ${change.from} to ${change.to}`;
  }
}
