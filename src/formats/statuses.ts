// DiscoPoP's status meanings (results.py at 53a01f2) as patch-repair's records apply them.
import type { SuggestionRecord, SuggestionStatus } from './results.js';
import type { BuildResult } from './types.js';

/** Seconds, as results.json records them (DiscoPoP rounds to two places). */
export function seconds(ms: number): number {
  return Math.round(ms / 10) / 100;
}

/** Seconds to the millisecond, as the records of check 7 and the race check give their timings. */
export function toTheMillisecond(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}

/**
 * A generated patch set that GNU patch could not apply, not repaired: DiscoPoP's `not_applied`,
 * whatever the repairers tried (patch-repair still tries: a patch regenerated against the current
 * sources is a real repair).
 */
export function unappliedStatus(build: BuildResult | null, status: SuggestionStatus): SuggestionStatus {
  return status === 'failed' && build?.failedAt === 'patch' ? 'not_applied' : status;
}

const REGENERATE =
  'the generated patches do not apply to the sources; regenerating them with DiscoPoP is the other fix';

export function withRegenerateHint(reason: string | null, status: SuggestionStatus): string | null {
  if (status !== 'not_applied') return reason;
  return reason === null ? REGENERATE : `${reason}; ${REGENERATE}`;
}

/** A repair the checks verified: repaired (written or not), or one whose write-back failed. */
export function isVerifiedRepair(record: Pick<SuggestionRecord, 'status' | 'reason_code'>): boolean {
  return record.status === 'repaired' || (record.status === 'failed' && record.reason_code === 'write-failed');
}
