// Reasons that decide something are values: the exit code and whether --resume keeps a record
// follow reason_code, whatever words the reason is shown in.
import { describe, expect, it } from 'vitest';
import { exitCodeFor, isFinal } from '../../src/formats/run-records.js';
import type { SuggestionRecord } from '../../src/formats/results.js';
import { suggestionRecord } from '../store/fixtures.js';

const skipped = (reason_code: SuggestionRecord['reason_code'], reason: string): SuggestionRecord => ({ ...suggestionRecord('2'), status: 'skipped', reason, reason_code });
const exitCode = (record: SuggestionRecord) => exitCodeFor({ suggestions: [record], run: { not_considered: [] } }, { fatalAgentError: false });

describe('reasons that decide', () => {
  it('give the exit code by their value, not their words', () => {
    expect(exitCode(skipped('max-repairs', 'reworded: the repair limit was met'))).toBe(0);
    expect(exitCode(skipped('no-patch', 'nothing to repair here'))).toBe(0);
    expect(exitCode(skipped('interrupted', '--max-repairs reached (2)'))).toBe(1);
    expect(exitCode({ ...suggestionRecord('2'), status: 'not_applied', reason: null, reason_code: null })).toBe(0);
    expect(exitCode({ ...suggestionRecord('2'), status: 'not_applied', reason: 'disk full', reason_code: 'write-failed' })).toBe(1);
  });

  it('tell --resume which records are final by their value', () => {
    expect(isFinal(skipped('no-patch', 'reworded'))).toBe(true);
    expect(isFinal(skipped('max-repairs', 'no patch'))).toBe(false);
    const unreachable = { ...suggestionRecord('2'), status: 'agent_unreachable' as const };
    expect(isFinal({ ...unreachable, reason: 'breaker', reason_code: 'endpoint-down' })).toBe(false);
    expect(isFinal({ ...unreachable, reason: 'allowance spent', reason_code: 'agent-unreachable' })).toBe(true);
  });
});
