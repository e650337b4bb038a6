// The end-of-run summary, rendered from results.json values alone so that the live run and
// `patch-repair show` print exactly the same text.
import type { ResultsFile, SuggestionRecord, SuggestionStatus } from '../formats/results.js';
import { ENDPOINT_DOWN_AFTER } from '../repair/budget.js';

const STATUS_LABELS: Record<SuggestionStatus, string> = {
  ok: 'Builds',
  repaired: 'Repaired',
  not_applied: 'Repaired, not written',
  failed: 'Failed',
  agent_unreachable: 'Agent unreachable',
  skipped: 'Skipped',
};

export const ENDPOINT_DOWN_NOTE = `The agent endpoint looked down: no calls were made after ${ENDPOINT_DOWN_AFTER} suggestions in a row got no answer.`;

export function renderSummary(results: ResultsFile): string {
  const lines: string[] = [];
  const rows = results.suggestions.map(tableRow);
  const header = ['id', 'hotspot', 'files', 'status', 'calls', 'class', 'detail'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const format = (cells: string[]) => cells.map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ').trimEnd();
  lines.push(format(header));
  for (const row of rows) lines.push(format(row));
  lines.push('');
  for (const status of Object.keys(STATUS_LABELS) as SuggestionStatus[]) {
    const count = results.run.counts[status] ?? 0;
    if (status === 'agent_unreachable') lines.push(`Agent unreachable: ${count} (no answer; not a failed repair)`);
    else if (count > 0) lines.push(`${STATUS_LABELS[status]}${status === 'not_applied' && results.run.mode === 'dry-run' ? ' (--dry-run)' : ''}: ${count}`);
  }
  if (results.run.endpoint_down) lines.push(ENDPOINT_DOWN_NOTE);
  if (results.run.cost_usd > 0) lines.push(`Agent cost reported: $${results.run.cost_usd.toFixed(4)}`);
  return lines.join('\n');
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
  if (record.status === 'not_applied' && record.reason !== null) return record.reason;
  if (record.status === 'repaired' || record.status === 'not_applied') {
    const changes = record.clause_changes.map(describeChange);
    if (record.non_directive_lines_changed) changes.push('non-directive lines changed');
    const by = record.builtin.accepted ? 'built-in' : (record.backend ?? 'agent');
    return `${by}: ${changes.length > 0 ? changes.join('; ') : 'directive moved or reformatted'}`;
  }
  if (record.status === 'ok') return record.repaired_earlier ? 'repaired by an earlier run' : '';
  return record.reason ?? record.first_error ?? '';
}

function describeChange(change: SuggestionRecord['clause_changes'][number]): string {
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
      return 'directive moved onto its loop';
  }
}
