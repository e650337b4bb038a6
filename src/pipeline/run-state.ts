// run-state.json, what --resume reads, is kept by a subscriber of the run's events: saved whenever
// an event changes what it holds (a discovery build, a finished suggestion, a verified repair about
// to be written). A stage that needs it on disk before its next step awaits `context.saved()`.
import { runFromEvents, runStateOf, type RunStateBase } from '../formats/run-fold.js';
import type { RunEvent } from '../formats/events.js';
import { RunStateWriter } from '../store/index.js';

const CHANGES_STATE: ReadonlySet<RunEvent['type']> = new Set(['discovered', 'writing', 'suggestion-finished', 'ended']);

/** The subscriber that keeps run-state.json, saved once now and then on every event that changes it. */
export function keepRunState(
  run: { dotDir: string; events: readonly RunEvent[] },
  base: RunStateBase,
): { apply(event: RunEvent): void; saved(): Promise<void> } {
  const writer = new RunStateWriter(run.dotDir, () => runStateOf(base, runFromEvents(run.events)));
  let last: Promise<void> = Promise.resolve();
  // The first failed save is the one reported; a later save that succeeds does not hide it.
  let failure: { error: unknown } | null = null;
  const save = () => {
    last = writer.save();
    last.catch((error: unknown) => {
      failure ??= { error };
    });
  };
  save();
  return {
    apply: (event) => {
      if (CHANGES_STATE.has(event.type)) save();
    },
    saved: async () => {
      await last.catch(() => undefined);
      if (failure) throw failure.error;
    },
  };
}
