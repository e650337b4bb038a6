// --progress-lines: the run's events as DiscoPoP's Patch Repair tab follows a run, `@@PR_PROGRESS
// <json>` lines on stdout (results.py `ProgressReporter` at 53a01f2): start, discovery, one
// `attempt` line per attempt, one suggestion per finished suggestion, done. A fold over our events: it
// decides nothing, and progress.jsonl keeps the richer events.
import type { CheckName, RunEvent } from '../formats/events.js';
import {
  type DiscopopProgressEvent,
  DETAIL_LIMIT,
  DiscopopProgressEventSchema,
  discopopOutcome,
  PROGRESS_PREFIX,
} from '../formats/discopop-progress.js';
import { discopopFields, sortedJson } from '../formats/results-document.js';
import type { SuggestionRecord } from '../formats/results.js';
import { compareIds } from '../formats/types.js';
import { seconds } from '../formats/statuses.js';

/** Our checks in the order a candidate meets them: the furthest rejection is the one reported. A record, so a new check cannot be left out. */
const CHECK_RANK: Record<CheckName, number> = {
  extraction: 0,
  'dry-run-apply': 1,
  apply: 2,
  canonicalize: 3,
  'directives-kept': 4,
  strict: 5,
  builds: 6,
  runs: 7,
  races: 8,
};

interface PendingAttempt {
  id: string;
  attempt: number;
  turn: number;
  template: string;
  /** The call's own outcome when it brought no answer to check, with its detail. */
  unanswered: string | null;
  /** The furthest check that rejected a candidate of the answer, and why. */
  rejection: { check: CheckName; reason: string } | null;
}

function integerId(id: string): number {
  return /^\d+$/.test(id) ? Number(id) : -1;
}

/** Integer ids in numeric order, as DiscoPoP lists them. */
function ids(list: Iterable<string>): number[] {
  return [...list].sort(compareIds).map(integerId);
}

/** One `@@PR_PROGRESS` line: DiscoPoP's prefix, then the event as JSON with sorted keys on one line. */
export function progressLine(event: DiscopopProgressEvent): string {
  return `${PROGRESS_PREFIX}${JSON.stringify(JSON.parse(sortedJson(DiscopopProgressEventSchema.parse(event))))}`;
}

export class ProgressLines {
  private started = false;
  private discoveryReported = false;
  private considered: string[] = [];
  private identity: { backend: string | null; model: string | null } = { backend: null, model: null };
  private dryRun = false;
  private readonly discovered = new Map<string, { ok: boolean; unapplied: boolean }>();
  private referenceBuilt = true;
  private readonly pending = new Map<string, PendingAttempt>();
  private readonly startedAt = Date.now();

  constructor(private readonly write: (line: string) => void) {}

  apply(event: RunEvent): void {
    for (const out of this.translate(event)) this.write(progressLine(out));
  }

  private translate(event: RunEvent): DiscopopProgressEvent[] {
    switch (event.type) {
      case 'run-started':
        this.dryRun = event.run.mode === 'dry-run';
        this.identity = { backend: event.run.backend, model: event.run.model };
        return [];
      case 'agent-picked':
        this.identity = { backend: event.backend, model: event.model };
        return [];
      case 'discovery-started':
        this.considered = event.suggestions;
        return this.start();
      case 'build-finished':
        if (event.purpose === 'reference' && !event.ok) this.referenceBuilt = false;
        return [];
      case 'discovered':
        this.discovered.set(event.id, { ok: event.build.ok, unapplied: event.build.failedAt === 'patch' });
        return [];
      case 'repair-started':
        return this.discovery();
      case 'call-started': {
        const flushed = this.flush(event.id, null);
        const template = event.tier === 'builtin' ? 'builtin' : (event.template ?? '').replace(/\.[^.]*$/, '');
        this.pending.set(event.id, {
          id: event.id,
          attempt: event.attempt,
          turn: event.turn,
          template,
          unanswered: null,
          rejection: null,
        });
        return flushed;
      }
      case 'call-finished': {
        const pending = this.pending.get(event.id);
        if (pending && event.outcome !== 'answered') pending.unanswered = event.detail ?? event.outcome;
        return [];
      }
      case 'check': {
        const pending = this.pending.get(event.id);
        if (
          pending &&
          !event.passed &&
          (pending.rejection === null || CHECK_RANK[event.check] >= CHECK_RANK[pending.rejection.check])
        ) {
          pending.rejection = { check: event.check, reason: event.reason ?? '' };
        }
        return [];
      }
      case 'suggestion-finished':
        return [
          ...this.discovery(),
          ...this.flush(event.record.id, event.record),
          { event: 'suggestion', ...discopopFields(event.record) },
        ];
      case 'run-finished':
        return [
          ...this.start(),
          ...this.discovery(),
          ...[...this.pending.keys()].flatMap((id) => this.flush(id, null)),
          this.done(event.run.counts),
        ];
      default:
        return [];
    }
  }

  private start(): DiscopopProgressEvent[] {
    if (this.started) return [];
    this.started = true;
    return [
      {
        event: 'start',
        candidates: ids(this.considered),
        candidate_count: this.considered.length,
        ...this.identity,
        dry_run: this.dryRun,
      },
    ];
  }

  /** Once, when discovery has settled: before the first repair or the first record, whichever comes first. */
  private discovery(): DiscopopProgressEvent[] {
    if (this.discoveryReported || !this.started) return [];
    this.discoveryReported = true;
    const of = (keep: (d: { ok: boolean; unapplied: boolean }) => boolean) =>
      ids([...this.discovered].filter(([, d]) => keep(d)).map(([id]) => id));
    return [
      {
        event: 'discovery',
        built: of((d) => d.ok),
        failing: of((d) => !d.ok),
        not_applied: of((d) => d.unapplied),
        reference_built: this.referenceBuilt,
      },
    ];
  }

  /** The attempt of `id` still open, as DiscoPoP reports it: accepted when the record names it, else what ended it. */
  private flush(id: string, record: SuggestionRecord | null): DiscopopProgressEvent[] {
    const open = this.pending.get(id);
    if (!open) return [];
    this.pending.delete(id);
    const accepted = record !== null && record.accepted_attempt === open.attempt && record.status !== 'not_applied';
    const outcome = accepted
      ? 'accepted'
      : open.unanswered !== null
        ? 'agent'
        : discopopOutcome({ accepted: false, rejectedBy: open.rejection?.check ?? null });
    const detail = accepted ? '' : (open.unanswered ?? open.rejection?.reason ?? '');
    return [
      {
        event: 'attempt',
        suggestion: integerId(id),
        attempt: open.attempt,
        turn: open.turn,
        template: open.template,
        outcome,
        detail: detail.slice(0, DETAIL_LIMIT),
      },
    ];
  }

  private done(counts: Record<string, number>): DiscopopProgressEvent {
    const n = (status: string) => counts[status] ?? 0;
    return {
      event: 'done',
      repaired: n('repaired'),
      failed: n('failed') + n('not_applied'),
      unreachable: n('agent_unreachable'),
      considered: this.considered.length,
      duration_s: seconds(Date.now() - this.startedAt),
    };
  }
}
