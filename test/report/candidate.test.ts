// Which patch set the review shows beside the generated one.
import { expect, it } from 'vitest';
import { candidateOf } from '../../src/report/candidate.js';
import type { StoredAttempt } from '../../src/store/index.js';
import type { VerdictFile } from '../../src/formats/verdict.js';

function attempt(
  n: number,
  o: {
    outcome: VerdictFile['outcome'];
    rejectedBy?: VerdictFile['rejected_by'];
    reason?: string;
    canonical?: string;
    extracted?: string;
  },
): StoredAttempt {
  return {
    attempt: n,
    call: null,
    prompt: 'p',
    answer: 'a',
    extracted: new Map(o.extracted ? [['1', o.extracted]] : []),
    canonical: new Map(o.canonical ? [['1', o.canonical]] : []),
    names: { prompt: 'prompt.txt', answer: 'response.txt', candidate: 'candidate' },
    rejection: null,
    verdict: {
      version: 1,
      run_check: null,
      race_check: null,
      id: 's',
      attempt: n,
      tier: 'agent',
      prompt: 1,
      turn: n - 1,
      source: 'rung 1',
      call_outcome: o.outcome === 'unanswered' ? 'timeout' : 'answered',
      call_detail: null,
      outcome: o.outcome,
      rejected_by: o.rejectedBy ?? null,
      reason: o.reason ?? null,
      checks: [],
      apply_report: null,
      clause_changes: [],
      non_directive_lines_changed: null,
      candidates: [],
      usage: null,
    },
  };
}

it('shows the accepted try, even when a later try exists', () => {
  const chosen = candidateOf([
    attempt(1, { outcome: 'accepted', canonical: 'good' }),
    attempt(2, { outcome: 'rejected', rejectedBy: 'builds', extracted: 'later' }),
  ]);
  expect(chosen).toMatchObject({ attempt: 1, accepted: true, kind: 'canonical', reason: null });
  expect(chosen?.patches.get('1')).toBe('good');
});

it('shows the last try that produced a patch when none was accepted, with the check that rejected it', () => {
  const chosen = candidateOf([
    attempt(1, { outcome: 'rejected', rejectedBy: 'builds', reason: 'x.c:3: error', canonical: 'first' }),
    attempt(2, { outcome: 'rejected', rejectedBy: 'apply', reason: 'hunk 1 does not apply', extracted: 'second' }),
    attempt(3, { outcome: 'unanswered' }),
  ]);
  expect(chosen).toMatchObject({
    attempt: 2,
    accepted: false,
    kind: 'candidate',
    folder: 'candidate',
    reason: 'rejected by apply: hunk 1 does not apply',
  });
  expect(chosen?.patches.get('1')).toBe('second');
});

it('has nothing to show when no try produced a patch', () => {
  expect(candidateOf([attempt(1, { outcome: 'unanswered' }), attempt(2, { outcome: 'declined' })])).toBeNull();
});
