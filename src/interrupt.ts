// SIGINT and SIGTERM during a run: the first one cancels running builds and agent calls (their
// process groups are killed) and lets the run clean up and record how far it got; a second one
// ends the process at once. SIGHUP (the terminal went away, an ssh session dropped) only takes
// the output away: the run goes on as under nohup, its writes to the lost terminal are dropped
// (cli.ts), and results.json, progress.jsonl and the repairs are written as they would have been.
import { setMaxListeners } from 'node:events';
import { EXIT_CODES, InterruptedError } from './errors.js';
import { killAllProcessGroups } from './process.js';

export interface Interrupt {
  signal: AbortSignal;
  received: 'SIGINT' | 'SIGTERM' | undefined;
  /** Throws InterruptedError once a signal arrived; called between steps. */
  check(): void;
  release(): void;
}

export function trapSignals(): Interrupt {
  const controller = new AbortController();
  // Every build and agent call in flight listens (and stops listening when it ends): with -j 16 and
  // several repairs at once that is more than Node's default of 10, and no leak.
  setMaxListeners(0, controller.signal);
  const state: Interrupt = {
    signal: controller.signal,
    received: undefined,
    check() {
      if (state.received) throw new InterruptedError(state.received);
    },
    release() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      process.off('SIGHUP', onHangUp);
    },
  };
  const onSignal = (signal: 'SIGINT' | 'SIGTERM') => {
    if (state.received) {
      killAllProcessGroups();
      process.exit(EXIT_CODES[signal].code);
    }
    state.received = signal;
    controller.abort();
  };
  const onHangUp = () => {};
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onHangUp);
  return state;
}
