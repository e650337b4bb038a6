// Reasons that decide something are values: the exit code and whether --resume keeps a record
// follow reason_code, whatever words the reason is shown in; and a run a signal stopped is never
// recorded as complete, whatever its records say.
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/formats/events.js';
import {
  exitCodeFor,
  finishedResults,
  isFinal,
  runFromEvents,
  runStateOf,
  type RunStateBase,
} from '../../src/formats/run-fold.js';
import type { SuggestionRecord } from '../../src/formats/results.js';
import { suggestionRecord } from '../store/fixtures.js';

const skipped = (reason_code: SuggestionRecord['reason_code'], reason: string): SuggestionRecord => ({
  ...suggestionRecord('2'),
  status: 'skipped',
  reason,
  reason_code,
});
const exitCode = (record: SuggestionRecord) =>
  exitCodeFor({ suggestions: [record], run: { not_considered: [] } }, { fatalAgentError: false });

describe('reasons that decide', () => {
  it('give the exit code by their value, not their words', () => {
    expect(exitCode(skipped('max-repairs', 'reworded: the repair limit was met'))).toBe(0);
    expect(exitCode(skipped('no-patch', 'nothing to repair here'))).toBe(0);
    expect(exitCode(skipped('interrupted', '--max-repairs reached (2)'))).toBe(1);
    // A dry-run repair is repaired and not written; a generated patch that does not apply and was not repaired is unfinished by its status alone.
    expect(exitCode({ ...suggestionRecord('2'), status: 'repaired', written: false })).toBe(0);
    expect(exitCode({ ...suggestionRecord('2'), status: 'not_applied', reason: null, reason_code: null })).toBe(1);
    expect(
      exitCode({ ...suggestionRecord('2'), status: 'failed', reason: 'disk full', reason_code: 'write-failed' }),
    ).toBe(1);
  });

  it('tell --resume which records are final by their value', () => {
    expect(isFinal(skipped('no-patch', 'reworded'))).toBe(true);
    expect(isFinal(skipped('max-repairs', 'no patch'))).toBe(false);
    const unreachable = { ...suggestionRecord('2'), status: 'agent_unreachable' as const };
    expect(isFinal({ ...unreachable, reason: 'breaker', reason_code: 'endpoint-down' })).toBe(false);
    expect(isFinal({ ...unreachable, reason: 'allowance spent', reason_code: 'agent-unreachable' })).toBe(true);
  });
});

describe('run-state.json complete', () => {
  const t = '2026-12-03T00:00:00.000Z';
  const base = {
    version: 2,
    run_id: 'r',
    mode: 'repair',
    tree: {},
    environment: {},
    outputs: [],
  } as unknown as RunStateBase;
  const everyoneFinished: RunEvent[] = [
    { t, type: 'discovery-started', suggestions: ['2', '3'], builds: 2, reused: 0, jobs: 1 },
    { t, type: 'suggestion-finished', record: suggestionRecord('2') },
    { t, type: 'suggestion-finished', record: { ...suggestionRecord('3'), status: 'failed' } },
  ];

  it('is true when every considered suggestion finished and the run ended on its own', () => {
    expect(runStateOf(base, runFromEvents(everyoneFinished)).complete).toBe(true);
  });

  it('is false when a signal stopped the run after its last suggestion finished, so --resume goes on from it', () => {
    const stopped: RunEvent[] = [...everyoneFinished, { t, type: 'ended', reason: 'SIGINT', exit_code: 130 }];
    expect(runStateOf(base, runFromEvents(stopped)).complete).toBe(false);
  });

  it('reads the `interrupted` event of an earlier release as the signal that ended the run', () => {
    const stopped: RunEvent[] = [...everyoneFinished, { t, type: 'interrupted', exit_code: 143 }];
    expect(runFromEvents(stopped).ended).toEqual({ reason: 'SIGTERM', exitCode: 143 });
    expect(runStateOf(base, runFromEvents(stopped)).complete).toBe(false);
  });
});

describe('how a run ended, from its events', () => {
  const t = '2026-12-03T00:00:00.000Z';
  const finished = { t, type: 'suggestion-finished', record: suggestionRecord('2') } as const;

  it('knows the agent stopped, and why, from agent-stopped; a log without one stopped nothing', () => {
    expect(runFromEvents([finished])).toMatchObject({ endpointDown: false, fatalAgentError: false, ended: null });
    const down = runFromEvents([finished, { t, type: 'agent-stopped', reason_code: 'endpoint-down', reason: 'x' }]);
    expect(down).toMatchObject({ endpointDown: true, fatalAgentError: false });
    const fatal = runFromEvents([{ t, type: 'agent-stopped', reason_code: 'fatal-agent', reason: 'auth' }]);
    expect(fatal).toMatchObject({ endpointDown: false, fatalAgentError: true });
  });

  it('gives results.json the exit code of what ended the run, else its records and a fatal agent error', () => {
    const base = suggestionRecord('2');
    const run = { ...runFromEvents([]), endpointDown: true };
    const o = { funnel: [], finished: t };
    const started = {} as Parameters<typeof finishedResults>[0];
    const ok = finishedResults({ ...started, not_considered: [] }, [base], run, o);
    expect(ok.exitCode).toBe(0);
    expect(ok.results.run.endpoint_down).toBe(true);
    expect(
      finishedResults({ ...started, not_considered: [] }, [base], { ...run, fatalAgentError: true }, o).exitCode,
    ).toBe(4);
    const refused = { ...run, ended: { reason: 'refused' as const, exitCode: 3 } };
    expect(finishedResults({ ...started, not_considered: [] }, [base], refused, o).exitCode).toBe(3);
  });
});
