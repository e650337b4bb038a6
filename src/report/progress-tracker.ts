// What the bars show, derived from the event stream alone: discovery builds done / failing, and
// the repair stage's suggestions in flight, each one's attempt against the budget, and unanswered calls.
import type { RunEvent } from '../formats/events.js';

export interface DiscoveryProgress {
  total: number;
  done: number;
  failing: number;
  /** The reference build runs before any suggestion is built. */
  referenceRunning: boolean;
  finished: boolean;
}

/** One suggestion being repaired now; several at once with --agent-jobs. */
export interface InFlight {
  id: string;
  tier: 'builtin' | 'agent' | null;
  /** Answered agent calls for this suggestion; --max-attempts caps them. */
  answered: number;
  /** The agent call under way counted as --max-attempts counts: answered calls before it, plus one. */
  attempt: number;
}

export interface RepairProgress {
  total: number;
  done: number;
  /** The suggestions in flight, in the order they started. */
  active: InFlight[];
  maxAttempts: number | null;
  /** Calls without an answer in the whole run. */
  unanswered: number;
}

export class ProgressTracker {
  discovery: DiscoveryProgress | null = null;
  repair: RepairProgress | null = null;
  private maxAttempts: number | null = null;
  private unanswered = 0;

  /** Applies one event; true when a bar's values changed. */
  apply(event: RunEvent): boolean {
    switch (event.type) {
      case 'run-started':
        this.maxAttempts = maxAttemptsOf(event.run.options);
        return false;
      case 'discovery-started':
        this.discovery = { total: event.builds, done: 0, failing: 0, referenceRunning: true, finished: false };
        return true;
      case 'build-finished':
        if (!this.discovery || event.purpose === 'verify' || event.purpose === 'probe') return false;
        if (event.purpose === 'reference') this.discovery.referenceRunning = false;
        else {
          this.discovery.done += 1;
          if (!event.ok) this.discovery.failing += 1;
        }
        return true;
      case 'repair-started':
        this.endDiscovery();
        this.repair ??= {
          total: event.total,
          done: 0,
          active: [],
          maxAttempts: this.maxAttempts,
          unanswered: this.unanswered,
        };
        this.repair.total = event.total;
        this.repair.active.push({ id: event.id, tier: null, answered: 0, attempt: 0 });
        return true;
      case 'call-started': {
        const active = this.active(event.id);
        if (!active) return false;
        active.tier = event.tier;
        if (event.tier === 'agent') active.attempt = active.answered + 1;
        return true;
      }
      case 'call-finished': {
        if (event.outcome !== 'answered' && event.outcome !== 'declined') this.unanswered += 1;
        if (!this.repair) return false;
        const active = this.active(event.id);
        if (active && event.tier === 'agent' && event.outcome === 'answered') active.answered += 1;
        this.repair.unanswered = this.unanswered;
        return true;
      }
      case 'suggestion-finished':
      case 'run-finished': {
        const ended = this.endDiscovery();
        // Once repairs began, every suggestion that finishes is a failing one: repaired, given up
        // or skipped by --max-repairs.
        if (this.repair && event.type === 'suggestion-finished') {
          this.repair.done += 1;
          this.repair.active = this.repair.active.filter((a) => a.id !== event.record.id);
          return true;
        }
        return ended;
      }
      default:
        return false;
    }
  }

  private active(id: string): InFlight | undefined {
    return this.repair?.active.find((a) => a.id === id);
  }

  /** An interrupted discovery ends with fewer builds than announced: the ones that happened are the total. */
  private endDiscovery(): boolean {
    if (!this.discovery || this.discovery.finished) return false;
    this.discovery.finished = true;
    this.discovery.total = this.discovery.done;
    return true;
  }
}

function maxAttemptsOf(options: Record<string, unknown>): number | null {
  const agent = options.agent;
  if (typeof agent !== 'object' || agent === null) return null;
  const value = (agent as Record<string, unknown>).maxAttempts;
  return typeof value === 'number' ? value : null;
}
