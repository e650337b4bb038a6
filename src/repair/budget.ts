// The run-level agent budget shared by every suggestion: reported cost against --max-cost, the
// endpoint-down rule (three suggestions in a row without any answer) and a fatal agent error.
// Once one of them trips, no further agent call is made for the rest of the run.
//
// With several repairs at once (--agent-jobs) every agent call goes through beginCall/endCall, so
// the budget knows the calls in flight: a call may only start while the reported cost plus what
// the calls in flight could still add stays below --max-cost. What a call in flight could add is
// estimated as the dearest call reported so far; while that estimate says "maybe over", a new call
// waits for the calls in flight to report instead of giving up on a guess. The cap can therefore
// only be passed by calls that were already running when it was reached: the overshoot is at most
// the cost of the calls in flight, never more than --agent-jobs calls.

import { setMaxListeners } from 'node:events';
import { ENDPOINT_DOWN_AFTER, ENDPOINT_DOWN_REASON } from '../formats/run-records.js';

export { ENDPOINT_DOWN_AFTER, ENDPOINT_DOWN_REASON };

export type AgentStop =
  | { kind: 'fatal-agent'; reason: string }
  | { kind: 'endpoint-down'; reason: string }
  | { kind: 'cost-limit'; reason: string };

export class RunBudget {
  costUsd = 0;
  endpointDown = false;
  /** Set by the first fatal agent error (authentication, quota, misconfiguration): the run exits 4. */
  fatal: { reason: string; detail: string } | null = null;
  /** Agent calls started and not yet finished. */
  inFlight = 0;
  private unreachableStreak = 0;
  /** The dearest single call so far: the estimate of what each call in flight may still cost. */
  private dearestCallUsd = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly cancel = new AbortController();

  constructor(private readonly limits: { maxCostUsd?: number }) {
    // One listener per agent call in flight, removed when it ends.
    setMaxListeners(0, this.cancel.signal);
  }

  /** Aborted by a fatal agent error: every call in flight is cancelled (its process group killed). */
  get signal(): AbortSignal {
    return this.cancel.signal;
  }

  setFatal(reason: string, detail: string): void {
    this.fatal ??= { reason, detail };
    this.cancel.abort(new Error(`agent unusable (${reason})`));
    this.wake();
  }

  /** Called once per suggestion that used the agent, in completion order: did any of its calls come back with an answer? */
  noteSuggestion(gotAnswer: boolean): void {
    this.unreachableStreak = gotAnswer ? 0 : this.unreachableStreak + 1;
    if (this.unreachableStreak >= ENDPOINT_DOWN_AFTER) {
      this.endpointDown = true;
      this.wake();
    }
  }

  /**
   * Admits one agent call, or says why none may start. Waits while the calls in flight could take
   * the cost past --max-cost; each admitted call must be ended with endCall().
   */
  async beginCall(): Promise<AgentStop | null> {
    for (;;) {
      const stop = this.stop();
      if (stop) return stop;
      if (!this.couldPassCap()) break;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.inFlight += 1;
    return null;
  }

  endCall(usd: number | undefined): void {
    this.inFlight -= 1;
    if (usd !== undefined && Number.isFinite(usd) && usd > 0) {
      this.costUsd += usd;
      this.dearestCallUsd = Math.max(this.dearestCallUsd, usd);
    }
    this.wake();
  }

  /** Why no further agent call may be made, or null while calls are allowed. */
  stop(): AgentStop | null {
    if (this.fatal)
      return { kind: 'fatal-agent', reason: `agent unusable (${this.fatal.reason}): ${this.fatal.detail}` };
    if (this.endpointDown) {
      return { kind: 'endpoint-down', reason: ENDPOINT_DOWN_REASON };
    }
    const max = this.limits.maxCostUsd;
    if (max !== undefined && this.costUsd >= max) {
      return { kind: 'cost-limit', reason: `cost limit reached: $${this.costUsd.toFixed(4)} of --max-cost $${max}` };
    }
    return null;
  }

  private couldPassCap(): boolean {
    const max = this.limits.maxCostUsd;
    return max !== undefined && this.inFlight > 0 && this.costUsd + this.inFlight * this.dearestCallUsd >= max;
  }

  private wake(): void {
    for (const resolve of this.waiting.splice(0)) resolve();
  }
}
