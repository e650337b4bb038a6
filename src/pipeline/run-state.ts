// run-state.json, what --resume reads, is kept by a subscriber of the run's events: saved whenever
// an event changes what it holds (a discovery build, a finished suggestion, a verified repair about
// to be written). A stage that needs it on disk before its next step awaits `context.saved()`.
import { runFromEvents, runStateOf, type RunStateBase } from '../formats/run-records.js';
import type { RunEvent } from '../formats/events.js';
import { RunStateWriter } from '../store/index.js';
import type { RunContext } from './session.js';

const CHANGES_STATE: ReadonlySet<RunEvent['type']> = new Set([
  'discovered',
  'screened',
  'writing',
  'suggestion-finished',
  'interrupted',
]);

export function keepRunState(context: RunContext, base: RunStateBase): void {
  const writer = new RunStateWriter(context.options.dotDir, () => runStateOf(base, runFromEvents(context.events)));
  let last: Promise<void> = Promise.resolve();
  // The first failed save is the one reported; a later save that succeeds does not hide it.
  let failure: { error: unknown } | null = null;
  const save = () => {
    last = writer.save();
    last.catch((error: unknown) => {
      failure ??= { error };
    });
  };
  context.subscribe({
    apply: (event) => {
      if (CHANGES_STATE.has(event.type)) save();
    },
    saved: async () => {
      await last.catch(() => undefined);
      if (failure) throw failure.error;
    },
  });
  save();
}
