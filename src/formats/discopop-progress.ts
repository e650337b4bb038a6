// DiscoPoP's progress events (results.py `ProgressReporter` at 53a01f2): what `--progress-lines`
// prints on stdout as `@@PR_PROGRESS <json>` lines for DiscoPoP's Patch Repair tab, and what
// DiscoPoP's own tool writes to progress.jsonl. Names, fields and types are DiscoPoP's; ids are
// integers there.
import { z } from 'zod';
import { HOTSPOT_TYPES } from './results-document.js';
import { SUGGESTION_STATUSES } from './results.js';
import type { CheckName } from './events.js';

export const PROGRESS_PREFIX = '@@PR_PROGRESS ';

/** DiscoPoP's gates, in order: the rejecting one (or accepted) is an attempt's outcome. */
export const ATTEMPT_OUTCOMES = [
  'agent',
  'extraction',
  'apply',
  'canonicalize',
  'pragmas',
  'compile',
  'accepted',
] as const;

/** DiscoPoP caps an attempt's detail at this many characters. */
export const DETAIL_LIMIT = 2000;

const ids = z.array(z.number().int());

export const DiscopopProgressEventSchema = z.discriminatedUnion('event', [
  z.object({
    event: z.literal('start'),
    candidates: ids,
    candidate_count: z.number().int().nonnegative(),
    backend: z.string().nullable(),
    model: z.string().nullable(),
    dry_run: z.boolean(),
  }),
  z.object({
    event: z.literal('discovery'),
    built: ids,
    failing: ids.describe('every suggestion that does not build, not_applied ones included'),
    not_applied: ids,
    reference_built: z.boolean(),
  }),
  z.object({
    event: z.literal('attempt'),
    suggestion: z.number().int(),
    attempt: z
      .number()
      .int()
      .positive()
      .describe('the call number: every agent call counts, as attempts/<id>/<n>/ does'),
    turn: z.number().int().nonnegative().describe('the turn within its conversation, from 0'),
    template: z.string().describe("the prompt template's file stem; builtin for the built-in repairer"),
    outcome: z
      .union([z.enum(ATTEMPT_OUTCOMES), z.string()])
      .describe(
        "DiscoPoP's gate that rejected the answer, or accepted; patch-repair adds run (check 7) and strict, harmless to DiscoPoP's tab, which acts only on suggestion, discovery and done events",
      ),
    detail: z.string().max(DETAIL_LIMIT),
  }),
  z.object({
    event: z.literal('suggestion'),
    suggestion_id: z.number().int().nullable(),
    hotspot_type: z.enum(HOTSPOT_TYPES),
    status: z.enum(SUGGESTION_STATUSES),
    files: ids,
    changed_files: ids,
    attempts: z.number().int().nonnegative(),
    unanswered: z.number().int().nonnegative(),
    accepted_attempt: z.number().int().positive().nullable(),
    backend: z.string().nullable(),
    model: z.string().nullable(),
    first_error: z.string(),
    duration_s: z.number().nonnegative(),
  }),
  z.object({
    event: z.literal('done'),
    repaired: z.number().int().nonnegative(),
    failed: z.number().int().nonnegative(),
    unreachable: z.number().int().nonnegative(),
    considered: z.number().int().nonnegative(),
    duration_s: z.number().nonnegative(),
  }),
]);
export type DiscopopProgressEvent = z.infer<typeof DiscopopProgressEventSchema>;

/** A line of DiscoPoP's progress.jsonl as patch-repair reads it: any object naming its `event`. */
export const DiscopopLogLineSchema = z.looseObject({ event: z.string() });
export type DiscopopLogLine = z.infer<typeof DiscopopLogLineSchema>;

/** DiscoPoP's gate for the check of ours that rejected an answer; run, races and strict have no gate there. */
const GATE_OF_CHECK: Record<CheckName, string> = {
  extraction: 'extraction',
  'dry-run-apply': 'apply',
  apply: 'apply',
  canonicalize: 'canonicalize',
  'directives-kept': 'pragmas',
  builds: 'compile',
  runs: 'run',
  races: 'races',
  strict: 'strict',
};

/**
 * What became of one attempt, in DiscoPoP's words: `accepted`, the gate that rejected its answer, or
 * `agent` for a call that brought no answer (and a built-in repairer that declined).
 */
export function discopopOutcome(o: { accepted: boolean; rejectedBy: CheckName | null }): string {
  if (o.accepted) return 'accepted';
  return o.rejectedBy === null ? 'agent' : GATE_OF_CHECK[o.rejectedBy];
}
