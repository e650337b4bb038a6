// The run-level agent budget shared by every suggestion: reported cost against --max-cost, the
// endpoint-down rule (three suggestions in a row without any answer) and a fatal agent error.
// Once one of them trips, no further agent call is made for the rest of the run; the fatal error
// and the endpoint-down rule are facts of the run, emitted once as `agent-stopped`.
//
// With several repairs at once (--agent-jobs) every agent call goes through beginCall/endCall, so
// the budget knows the calls in flight: a call may only start while the reported cost plus what
// the calls in flight could still add stays below --max-cost. What a call in flight could add is
// estimated as the dearest call reported so far; while that estimate says "maybe over", a new call
// waits for the calls in flight to report instead of giving up on a guess. The cap can therefore
// only be passed by calls that were already running when it was reached: the overshoot is at most
// the cost of the calls in flight, never more than --agent-jobs calls.

import { setMaxListeners } from 'node:events';
import type { Emit } from '../formats/events.js';

/** Suggestions in a row that got no answer at all before the endpoint counts as down. */
export const ENDPOINT_DOWN_AFTER = 3;
export const ENDPOINT_DOWN_REASON = `agent unreachable for ${ENDPOINT_DOWN_AFTER} suggestions in a row; no further calls`;

export type AgentStop =
  | { kind: 'fatal-agent'; reason: string }
  | { kind: 'endpoint-down'; reason: string }
  | { kind: 'cost-limit'; reason: string };

export class RunBudget {
  private costUsd = 0;
  private endpointDown = false;
  /** Set by the first fatal agent error (authentication, quota, misconfiguration): the run exits 4. */
  private fatal: { reason: string; detail: string } | null = null;
  /** Agent calls started and not yet finished. */
  private inFlight = 0;
  private unreachableStreak = 0;
  /** The dearest single call so far: the estimate of what each call in flight may still cost. */
  private dearestCallUsd = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly cancel = new AbortController();

  constructor(private readonly limits: { maxCostUsd?: number; emit: Emit }) {
    // One listener per agent call in flight, removed when it ends.
    setMaxListeners(0, this.cancel.signal);
  }

  /** Aborted by a fatal agent error: every call in flight is cancelled (its process group killed). */
  get signal(): AbortSignal {
    return this.cancel.signal;
  }

  setFatal(reason: string, detail: string): void {
    if (this.fatal === null) {
      this.fatal = { reason, detail };
      this.limits.emit({ type: 'agent-stopped', reason_code: 'fatal-agent', reason: this.stop()!.reason });
    }
    this.cancel.abort(new Error(`agent unusable (${reason})`));
    this.wake();
  }

  /** A fatal agent error stopped every call: the suggestions after it are not even started. */
  get stoppedByFatalError(): boolean {
    return this.fatal !== null;
  }

  /** Called once per suggestion that used the agent, in completion order: did any of its calls come back with an answer? */
  noteSuggestion(gotAnswer: boolean): void {
    this.unreachableStreak = gotAnswer ? 0 : this.unreachableStreak + 1;
    if (this.unreachableStreak >= ENDPOINT_DOWN_AFTER && !this.endpointDown) {
      this.endpointDown = true;
      this.limits.emit({ type: 'agent-stopped', reason_code: 'endpoint-down', reason: ENDPOINT_DOWN_REASON });
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
