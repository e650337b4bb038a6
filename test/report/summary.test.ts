// The summary's count lines: each label says what it counts, usage only when an agent reported it.
import { describe, expect, it } from 'vitest';
import { countStatuses } from '../../src/formats/run-fold.js';
import { renderSummary } from '../../src/report/summary.js';
import type { RunResults, SuggestionRecord } from '../../src/formats/results.js';
import { SAMPLE_RUN } from './events.js';

const started = SAMPLE_RUN[0]!.type === 'run-started' ? SAMPLE_RUN[0]!.run : null!;
const base = SAMPLE_RUN.flatMap((e) => (e.type === 'suggestion-finished' ? [e.record] : []))[0]!;
const rec = (id: string, extra: Partial<SuggestionRecord>): SuggestionRecord => ({ ...base, id, ...extra });

function summary(records: SuggestionRecord[], run: Partial<RunResults['run']> = {}): string[] {
  const results: RunResults = {
    version: 1,
    run: { ...started, counts: countStatuses(records), ...run },
    suggestions: records,
  };
  return renderSummary(results)
    .split('\n')
    .slice(records.length + 2);
}

describe('the count lines', () => {
  it('say what they count: built as generated apart from built with an earlier repair, and why suggestions were skipped', () => {
    const lines = summary([
      rec('1', { status: 'ok' }),
      rec('2', { status: 'ok', repaired_earlier: true }),
      rec('3', { status: 'failed', reason: 'no candidate passed verification' }),
      rec('4', { status: 'skipped', reason: 'no patch', reason_code: 'no-patch' }),
      rec('5', { status: 'skipped', reason: '--max-repairs reached (1)' }),
    ]);
    expect(lines).toEqual([
      'Build as generated: 1',
      "Build with an earlier run's repair: 1",
      'Do not build, not repaired: 1',
      'Agent unreachable: 0 (no answer; not a failed repair)',
      'Skipped, not built or not repaired: 2 (no patch: 1; --max-repairs reached: 1)',
    ]);
    expect(lines.join('\n')).not.toMatch(/^Builds: /m);
  });

  it('call a failing suggestion of --discover-only what it is: no repair was tried', () => {
    expect(summary([rec('3', { status: 'failed' })], { mode: 'discover-only' })[0]).toBe(
      'Do not build (--discover-only: no repair tried): 1',
    );
  });

  it('print the usage totals when an agent reported them, and never a made-up 0', () => {
    const records = [rec('1', { status: 'repaired', input_tokens: 120, output_tokens: 30, cost_usd: null })];
    expect(summary(records, { input_tokens: 120, output_tokens: 30, cost_usd: null })).toContain(
      'Agent usage reported: 120 input tokens, 30 output tokens',
    );
    expect(summary(records, { input_tokens: null, output_tokens: null, cost_usd: null }).join('\n')).not.toContain(
      'Agent usage',
    );
  });

  it('count repairs that may race on a line of their own, naming --strict and show', () => {
    const removed = {
      file: '1',
      directive: '#pragma omp parallel for reduction(+:sum)',
      kind: 'clause-removed' as const,
      clause: 'reduction(+:)',
      from: 'reduction(+:sum)',
    };
    const racy = rec('7', { status: 'repaired', clause_changes: [removed], may_race: [removed] });
    const explained = rec('8', {
      status: 'repaired',
      clause_changes: [{ ...removed, kind: 'variable-removed', clause: 'private', variable: 'acc' }],
    });
    const line = summary([racy, explained]).find((l) => l.startsWith('Repairs that take'));
    expect(line).toBe(
      'Repairs that take a variable out of a reduction or privatizing clause the compiler accepted (the loop may now race): 1 (7); review each with `patch-repair show <id>`; --strict refuses such repairs',
    );
  });
});
