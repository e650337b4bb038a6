// --resume: what the most recent unfinished run already settled, and may be taken over. Nothing is
// trusted whose inputs changed: a discovery build is reused only when the digest of what it
// depended on (project tree, compile.sh, settings, compiler, the patch set) is the same now, and a
// suggestion's records and tries carry over only under the same condition (or, for a repair the
// old run wrote, when its patch set is still exactly what it wrote).
import { join } from 'node:path';
import type { RunState } from '../formats/resume-state.js';
import type { SuggestionRecord } from '../formats/results.js';
import type { PriorTry } from '../formats/outcome.js';
import type { BuildResult } from '../formats/types.js';
import type { StoredAttempt } from '../store/attempts.js';

export interface ResumePlan {
  /** The run taken over; null when the run starts afresh. */
  from: string | null;
  /** One line for the user: what was taken over, or why nothing was. */
  notice: string;
  /** Discovery builds whose inputs did not change, by suggestion id. */
  builds: Map<string, BuildResult>;
  /** Records kept as they are; these suggestions are neither built nor asked again. */
  kept: Map<string, SuggestionRecord>;
  /** Suggestions whose tries continue, by id: their attempts/<id>/ folder in the old run. */
  continued: Map<string, string>;
}

export function planResume(o: {
  previous: RunState | null;
  /** Where the previous run's files went (history/<its id>/). */
  previousDir: string | null;
  mode: 'repair' | 'dry-run';
  inputs: string;
  /** Current build digest of every considered suggestion with a patch. */
  digests: ReadonlyMap<string, string>;
  /** Suggestions whose patch set is exactly what an earlier repair wrote (backups/<id>.written). */
  writtenByRepair: ReadonlySet<string>;
}): ResumePlan {
  const fresh = (why: string): ResumePlan => ({ from: null, notice: `--resume: ${why}; starting afresh`, builds: new Map(), kept: new Map(), continued: new Map() });
  const { previous } = o;
  if (!previous || o.previousDir === null) return fresh('no earlier run to resume');
  if (previous.complete) return fresh(`run ${previous.run_id} finished`);
  if (previous.mode !== o.mode) return fresh(`run ${previous.run_id} was a ${previous.mode} run, this is a ${o.mode} run`);
  if (previous.inputs !== o.inputs) {
    return fresh(`the project changed since run ${previous.run_id} (sources, compile.sh, settings or compiler), so nothing of it is trusted`);
  }
  const plan: ResumePlan = { from: previous.run_id, notice: '', builds: new Map(), kept: new Map(), continued: new Map() };
  let changed = 0;
  for (const [id, digest] of o.digests) {
    const old = previous.builds[id];
    const same = old?.digest === digest;
    const record = previous.finished[id];
    if (record && (same || (record.status === 'repaired' && o.writtenByRepair.has(id)))) {
      plan.kept.set(id, record);
      continue;
    }
    if (!same) {
      if (old) changed += 1;
      continue;
    }
    plan.builds.set(id, old.build);
    plan.continued.set(id, join(o.previousDir, 'attempts', id));
  }
  const parts = [`${plan.kept.size} suggestion(s) kept as finished`, `${plan.builds.size} discovery build(s) reused`];
  if (changed > 0) parts.push(`${changed} changed patch set(s) start afresh`);
  plan.notice = `resuming run ${previous.run_id}: ${parts.join(', ')}`;
  return plan;
}

/** A stored try as the attempt loop continues from it. */
export function priorTry(stored: StoredAttempt): PriorTry | null {
  const { verdict, call } = stored;
  if (verdict) {
    const outcome = verdict.outcome;
    return {
      attempt: stored.attempt,
      tier: verdict.tier,
      conversation: verdict.prompt,
      turn: verdict.turn,
      source: verdict.source,
      prompt: stored.prompt,
      answer: stored.answer,
      outcome,
      rejectedBy: verdict.rejected_by,
      reason: outcome === 'declined' ? verdict.call_detail : verdict.reason,
      costUsd: verdict.usage?.cost_usd ?? 0,
    };
  }
  // An answer that arrived but whose check never finished: checked again, not asked again.
  if (call && stored.answer !== null) {
    return {
      attempt: stored.attempt,
      tier: call.tier,
      conversation: call.prompt,
      turn: call.turn,
      source: call.source,
      prompt: stored.prompt,
      answer: stored.answer,
      outcome: 'pending',
      rejectedBy: null,
      reason: null,
      costUsd: call.cost_usd ?? 0,
    };
  }
  // A folder the kill left before the answer arrived: that call never happened for the record.
  return null;
}
