// The patch set to put beside the generated one: the accepted attempt's, else the last rejected one.
import type { StoredAttempt } from '../store/index.js';

export interface Candidate {
  attempt: number;
  accepted: boolean;
  /** canonical when the attempt got that far, else the candidate extracted from the answer. */
  kind: 'canonical' | 'candidate';
  /** attempts/<id>/<n>/<folder>/: canonical, candidate, or extracted as it was named before results format 2. */
  folder: string;
  patches: Map<string, string>;
  /** Why it was rejected: the check and its reason. */
  reason: string | null;
}

export function candidateOf(attempts: StoredAttempt[]): Candidate | null {
  const accepted = attempts.find((a) => a.verdict?.outcome === 'accepted');
  const chosen = accepted ?? attempts.filter((a) => a.canonical.size > 0 || a.extracted.size > 0).at(-1);
  if (!chosen) return null;
  const kind = chosen.canonical.size > 0 ? 'canonical' : 'candidate';
  const v = chosen.verdict;
  return {
    attempt: chosen.attempt,
    accepted: chosen === accepted,
    kind,
    folder: kind === 'canonical' ? 'canonical' : chosen.names.candidate,
    patches: kind === 'canonical' ? chosen.canonical : chosen.extracted,
    reason:
      v && !accepted
        ? `${v.rejected_by ? `rejected by ${v.rejected_by}` : v.outcome}${v.reason ? `: ${v.reason}` : ''}`
        : chosen.rejection,
  };
}
