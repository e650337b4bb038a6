// Where a run's time went (issue 47, item 6): the phase times are a fold of the event stream, so
// the live summary, results.json and `show` of the same progress.jsonl agree; a resumed run counts
// its own time, never what it carried over from the stopped run.
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/formats/events.js';
import { RunRecordSchema } from '../../src/formats/results.js';
import { phaseTimes, runFromEvents } from '../../src/formats/run-fold.js';
import { replayEvents } from '../../src/report/run-replay.js';
import { phaseLine, renderSummary } from '../../src/report/summary.js';
import { runRecord, suggestionRecord } from '../store/fixtures.js';

/** An ISO time `s` seconds after a fixed start. */
const at = (s: number) => new Date(Date.UTC(2026, 11, 4, 12, 0, 0) + s * 1000).toISOString();

const started = (s: number): RunEvent => ({
  t: at(s),
  type: 'run-started',
  run: { ...runRecord('r'), finished: null },
});
const reference = (s: number): RunEvent => ({
  t: at(s),
  type: 'build-finished',
  id: null,
  purpose: 'reference',
  ok: true,
  error_class: null,
  first_error: null,
  duration_ms: 1000,
});
const repairStarted = (s: number, id: string): RunEvent => ({
  t: at(s),
  type: 'repair-started',
  id,
  index: 1,
  total: 2,
});
const writing = (s: number, id: string): RunEvent => ({
  t: at(s),
  type: 'writing',
  record: { ...suggestionRecord(id), status: 'repaired' },
});
const written = (s: number, id: string): RunEvent => ({ t: at(s), type: 'written', id, files: ['1'], digest: 'd' });
const finished = (s: number, id: string): RunEvent => ({
  t: at(s),
  type: 'suggestion-finished',
  record: suggestionRecord(id),
});

describe('phase times', () => {
  it('split the run at the reference build, the first repair and the write-backs', () => {
    const events = [
      started(0),
      reference(11.4),
      repairStarted(25, '2'),
      writing(26, '2'),
      written(26.5, '2'),
      finished(26.6, '2'),
      repairStarted(27, '3'),
      // A write-back that fails ends with the suggestion's final record, not a `written` event.
      writing(28, '3'),
      finished(28.25, '3'),
    ];
    expect(phaseTimes(runFromEvents(events).phases, at(30))).toEqual({
      reference_s: 11.4,
      discovery_s: 13.6,
      repair_s: 4.25,
      write_back_s: 0.75,
    });
  });

  it('of a resumed run leave out what it carried over from the stopped run', () => {
    // Carried events keep their old times and come before this run's reference build ends.
    const events = [
      started(100),
      repairStarted(10, '2'),
      writing(11, '2'),
      written(15, '2'),
      finished(15, '2'),
      reference(103),
      repairStarted(110, '3'),
    ];
    expect(phaseTimes(runFromEvents(events).phases, at(112))).toEqual({
      reference_s: 3,
      discovery_s: 7,
      repair_s: 2,
      write_back_s: null,
    });
  });

  it('of a killed run run to its last event, and the phases it never reached are null', () => {
    const killed = [started(0), reference(2), { t: at(5), type: 'notice', level: 'info', message: 'x' } as RunEvent];
    expect(phaseTimes(runFromEvents(killed).phases)).toEqual({
      reference_s: 2,
      discovery_s: 3,
      repair_s: null,
      write_back_s: null,
    });
    expect(
      phaseTimes(
        runFromEvents([started(0), { ...reference(4), type: 'notice', level: 'info', message: 'x' } as RunEvent])
          .phases,
      ),
    ).toEqual({
      reference_s: 4,
      discovery_s: null,
      repair_s: null,
      write_back_s: null,
    });
  });

  it('are the same in `show` of a killed run as the fold says, and printed in one line', () => {
    const events = [
      started(0),
      reference(1.5),
      repairStarted(4, '2'),
      writing(9, '2'),
      { t: at(9.5), type: 'notice', level: 'error', message: 'x' } as RunEvent,
    ];
    const replayed = replayEvents({ events, truncated: false, source: 'progress.jsonl' });
    expect(replayed.results.run.phases).toEqual(phaseTimes(runFromEvents(events).phases));
    expect(phaseLine(replayed.results.run.phases)).toBe(
      'Time: reference 1.5 s, discovery 2.5 s, repair 5.0 s, write-back 0.5 s',
    );
    expect(renderSummary(replayed.results).split('\n')).toContain(phaseLine(replayed.results.run.phases));
  });

  it('are absent from a results.json an earlier release wrote, which still reads and prints', () => {
    const { phases: _none, ...older } = { ...runRecord('r'), phases: null };
    const run = RunRecordSchema.parse(older);
    expect(run.phases).toBeUndefined();
    expect(phaseLine(run.phases)).toBeNull();
    expect(renderSummary({ version: 1, run, suggestions: [] })).not.toMatch(/^Time:/m);
  });
});
