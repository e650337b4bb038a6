// The attrition funnel: how many answers reached each check, counted from the event stream alone
// (call-finished, check, written), so the live run, `show` and the review page of a replayed or
// killed run all count the same events the same way. An answer with several candidates counts
// once, at the furthest any of them got.
import type { CheckName, RunEvent } from '../formats/events.js';
import { FUNNEL_STAGES, type FunnelEntry, type FunnelStage } from '../formats/results.js';

/** Which funnel stage passing a check means; dry-run-apply is part of `applies`, reached with apply. */
const STAGE_OF_CHECK: Partial<Record<CheckName, Exclude<FunnelStage, 'answered' | 'written'> | 'strict'>> = {
  extraction: 'extracted',
  apply: 'applies',
  canonicalize: 'canonical',
  'directives-kept': 'directives_kept',
  strict: 'strict',
  builds: 'builds',
  runs: 'runs_same',
};

interface Answer {
  key: string;
  passed: Set<string>;
}

export class FunnelCounter {
  private readonly entries = new Map<string, FunnelEntry>();
  /** `${id}\u0000${attempt}` → the answer's group and the stages any of its candidates reached. */
  private readonly answers = new Map<string, Answer>();
  /** Suggestion id → its answer that passed every check, for the `written` event. */
  private readonly verified = new Map<string, string>();

  /** `checkRun`: the run had --check-run, so the `runs_same` stage counts (null otherwise). */
  constructor(private readonly o: FunnelOptions) {}

  apply(event: RunEvent): void {
    switch (event.type) {
      case 'call-finished': {
        if (event.outcome !== 'answered') return;
        const backend = event.tier === 'builtin' ? 'builtin' : (event.backend ?? 'agent');
        const model = event.tier === 'builtin' ? null : event.model;
        const key = `${event.tier}\u0000${backend}\u0000${model ?? ''}`;
        if (!this.entries.has(key)) this.entries.set(key, this.emptyEntry(event.tier, backend, model));
        this.entries.get(key)!.answered += 1;
        this.answers.set(answerKey(event.id, event.attempt), { key, passed: new Set() });
        return;
      }
      case 'check': {
        const stage = STAGE_OF_CHECK[event.check];
        const answer = this.answers.get(answerKey(event.id, event.attempt));
        if (!event.passed || !stage || !answer || answer.passed.has(stage)) return;
        answer.passed.add(stage);
        const entry = this.entries.get(answer.key)!;
        if (stage === 'strict') entry.strict = (entry.strict ?? 0) + 1;
        else if (stage === 'runs_same') entry.runs_same = (entry.runs_same ?? 0) + 1;
        else entry[stage] += 1;
        if (stage === 'builds' || stage === 'runs_same') this.verified.set(event.id, answer.key);
        return;
      }
      case 'written': {
        const key = this.verified.get(event.id);
        const entry = key === undefined ? undefined : this.entries.get(key);
        if (entry) entry.written = (entry.written ?? 0) + 1;
        return;
      }
      default:
    }
  }

  /** The built-in repairer first, then the agents in the order they first answered. */
  result(): FunnelEntry[] {
    const all = [...this.entries.values()].map((entry) => ({ ...entry }));
    return [...all.filter((e) => e.tier === 'builtin'), ...all.filter((e) => e.tier === 'agent')];
  }

  private emptyEntry(tier: FunnelEntry['tier'], backend: string, model: string | null): FunnelEntry {
    return {
      tier,
      backend,
      model,
      answered: 0,
      extracted: 0,
      applies: 0,
      canonical: 0,
      directives_kept: 0,
      strict: this.o.strict ? 0 : null,
      builds: 0,
      runs_same: this.o.checkRun ? 0 : null,
      written: this.o.writes ? 0 : null,
    };
  }
}

export interface FunnelOptions {
  strict: boolean;
  writes: boolean;
  checkRun?: boolean;
}

function answerKey(id: string, attempt: number): string {
  return `${id}\u0000${attempt}`;
}

/** The funnel of a run's events; `strict` and `writes` come from its run record. */
export function funnelOf(events: readonly RunEvent[], o: FunnelOptions): FunnelEntry[] {
  const counter = new FunnelCounter(o);
  for (const event of events) counter.apply(event);
  return counter.result();
}

const STAGE_LABELS: Record<Exclude<FunnelStage, 'answered'> | 'strict', string> = {
  extracted: 'extracted',
  applies: 'applies',
  canonical: 'canonical',
  directives_kept: 'directives kept',
  strict: 'strict',
  builds: 'builds',
  runs_same: 'runs the same',
  written: 'written',
};

/** The stages of an entry with their counts, in order; `strict`, `runs_same` and `written` only where they apply. */
export function funnelStages(entry: FunnelEntry): { stage: FunnelStage | 'strict'; label: string; count: number }[] {
  const stages: { stage: FunnelStage | 'strict'; label: string; count: number }[] = [];
  for (const stage of FUNNEL_STAGES) {
    if (stage === 'builds' && entry.strict !== null)
      stages.push({ stage: 'strict', label: STAGE_LABELS.strict, count: entry.strict });
    if (stage === 'answered') stages.push({ stage, label: 'answers', count: entry.answered });
    else if (stage === 'written' || stage === 'runs_same') {
      const count = entry[stage];
      if (count !== null) stages.push({ stage, label: STAGE_LABELS[stage], count });
    } else stages.push({ stage, label: STAGE_LABELS[stage], count: entry[stage] });
  }
  return stages;
}

/** `Agent answers (claude, sonnet): 14 → extracted 13 → applies 12 → … → written 7` */
export function funnelLine(entry: FunnelEntry): string {
  const who =
    entry.tier === 'builtin'
      ? 'Built-in repairer answers'
      : `Agent answers (${[entry.backend, entry.model].filter(Boolean).join(', ')})`;
  const [answered, ...rest] = funnelStages(entry);
  return `${who}: ${answered!.count} → ${rest.map((s) => `${s.label} ${s.count}`).join(' → ')}`;
}
