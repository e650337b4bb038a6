// The run-level agent budget shared by every suggestion: reported cost against --max-cost, the
// endpoint-down rule (three suggestions in a row without any answer) and a fatal agent error.
// Once one of them trips, no further agent call is made for the rest of the run.

/** Suggestions in a row that got no answer at all before the endpoint counts as down. */
export const ENDPOINT_DOWN_AFTER = 3;

export type AgentStop =
  | { kind: 'fatal'; reason: string }
  | { kind: 'endpoint-down'; reason: string }
  | { kind: 'cost'; reason: string };

export class RunBudget {
  costUsd = 0;
  endpointDown = false;
  /** Set by the first fatal agent error (authentication, quota, misconfiguration): the run exits 4. */
  fatal: { reason: string; detail: string } | null = null;
  private unreachableStreak = 0;

  constructor(private readonly limits: { maxCostUsd?: number }) {}

  addCost(usd: number | undefined): void {
    if (usd !== undefined && Number.isFinite(usd) && usd > 0) this.costUsd += usd;
  }

  setFatal(reason: string, detail: string): void {
    this.fatal ??= { reason, detail };
  }

  /** Called once per suggestion that used the agent: did any of its calls come back with an answer? */
  noteSuggestion(gotAnswer: boolean): void {
    this.unreachableStreak = gotAnswer ? 0 : this.unreachableStreak + 1;
    if (this.unreachableStreak >= ENDPOINT_DOWN_AFTER) this.endpointDown = true;
  }

  /** Why no further agent call may be made, or null while calls are allowed. */
  stop(): AgentStop | null {
    if (this.fatal) return { kind: 'fatal', reason: `agent unusable (${this.fatal.reason}): ${this.fatal.detail}` };
    if (this.endpointDown) {
      return { kind: 'endpoint-down', reason: `agent unreachable for ${ENDPOINT_DOWN_AFTER} suggestions in a row; no further calls` };
    }
    const max = this.limits.maxCostUsd;
    if (max !== undefined && this.costUsd >= max) {
      return { kind: 'cost', reason: `cost limit reached: $${this.costUsd.toFixed(4)} of --max-cost $${max}` };
    }
    return null;
  }
}
