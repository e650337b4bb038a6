// What the bars show, derived from the event stream alone: discovery builds done / failing, and
// the repair stage's current suggestion, its attempt against the budget and unanswered calls.
import type { RunEvent } from '../formats/events.js';

export interface DiscoveryProgress {
  total: number;
  done: number;
  failing: number;
  /** The reference build runs before any suggestion is built. */
  referenceRunning: boolean;
  finished: boolean;
}

export interface RepairProgress {
  total: number;
  done: number;
  id: string;
  tier: 'builtin' | 'agent' | null;
  /** Answered agent calls for the current suggestion; --max-attempts caps them. */
  answered: number;
  /** The agent call under way counted as --max-attempts counts: answered calls before it, plus one. */
  attempt: number;
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
        this.repair = {
          total: event.total,
          done: event.index - 1,
          id: event.id,
          tier: null,
          answered: 0,
          attempt: 0,
          maxAttempts: this.maxAttempts,
          unanswered: this.unanswered,
        };
        return true;
      case 'call-started':
        if (!this.repair) return false;
        this.repair.tier = event.tier;
        if (event.tier === 'agent') this.repair.attempt = this.repair.answered + 1;
        return true;
      case 'call-finished':
        if (event.outcome !== 'answered' && event.outcome !== 'declined') this.unanswered += 1;
        if (!this.repair) return false;
        if (event.tier === 'agent' && event.outcome === 'answered') this.repair.answered += 1;
        this.repair.unanswered = this.unanswered;
        return true;
      case 'suggestion-finished':
      case 'run-finished': {
        const ended = this.endDiscovery();
        // Once repairs began, every suggestion that finishes is a failing one: repaired, given up
        // or skipped by --max-repairs.
        if (this.repair && event.type === 'suggestion-finished') {
          this.repair.done += 1;
          this.repair.tier = null;
          return true;
        }
        return ended;
      }
      default:
        return false;
    }
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
