// --strict: a candidate may only change directive lines, and may not take away a reduction or a
// privatizing clause (or a variable from one): without them the parallel loop can race even
// though it compiles, so such a repair needs a human decision.
import { PRIVATIZING_CLAUSES } from '../../patch/openmp.js';
import type { BuildResult } from '../../formats/types.js';
import type { ClauseChange } from '../../formats/results.js';
import { pass, reject, type CheckOutcome } from './result.js';
import type { DirectivesKept } from '../../formats/attempt.js';

export function strictCheck(kept: DirectivesKept): CheckOutcome<null> {
  if (kept.nonDirectiveLinesChanged) {
    return reject(
      'In strict mode only directive lines may change, and the answer changes other lines; change the #pragma omp lines only.',
    );
  }
  const weakening = kept.clauseChanges.filter(weakensPrivatization);
  if (weakening.length > 0) {
    return reject(
      `In strict mode privatizing and reduction clauses may not be removed, and the answer ${weakening.map(describeWeakening).join('; ')}. Keep them and fix the directive another way.`,
    );
  }
  return pass(null);
}

/** Whether a clause change takes a reduction or privatization away: the loop may race although it compiles. */
export function weakensPrivatization(change: ClauseChange): boolean {
  // Clauses are recorded with their modifier, e.g. `reduction(+:)`; the name decides.
  const isPrivatizing = (clause: string | undefined) =>
    clause !== undefined && PRIVATIZING_CLAUSES.has(clause.split('(')[0]!.trim());
  switch (change.kind) {
    case 'clause-removed':
    case 'variable-removed':
      return isPrivatizing(change.clause);
    case 'variable-moved':
      return isPrivatizing(change.from) && !isPrivatizing(change.to);
    default:
      return false;
  }
}

/**
 * The weakening changes the compiler does not explain. A variable the failing build called
 * undeclared, or refused to privatize (const), was never privatized there: taking it out cannot
 * make the loop race. Any other variable taken out of a reduction or privatization may.
 */
export function mayRace(changes: readonly ClauseChange[], build: BuildResult): ClauseChange[] {
  const refused = new Set<string>();
  for (const d of build.diagnostics) {
    if (d.errorClass !== 'undeclared-in-clause' && d.errorClass !== 'invalid-privatization') continue;
    for (const text of [d.message, ...d.notes.map((note) => note.message)]) {
      for (const match of text.matchAll(/'([A-Za-z_]\w*)'/g)) refused.add(match[1]!);
    }
  }
  return changes
    .filter(weakensPrivatization)
    .filter((change) => variablesOf(change).some((variable) => !refused.has(variable)));
}

/** The variables a change takes away: its own, or a removed clause's list (`reduction(+:a,b)`). */
function variablesOf(change: ClauseChange): string[] {
  if (change.variable) return [change.variable];
  const list = /\(([^)]*)\)/.exec(change.from ?? '')?.[1] ?? '';
  const names = list
    .slice(list.lastIndexOf(':') + 1)
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  return names.length > 0 ? names : [''];
}

/** The change in words, the clause with its variables: `removes reduction(+:sum) from "#pragma omp …"`. */
export function describeWeakening(change: ClauseChange): string {
  const where = `from "${change.directive}"`;
  switch (change.kind) {
    case 'clause-removed':
      return `removes ${change.from ?? change.clause ?? 'a clause'} ${where}`;
    case 'variable-removed':
      return `removes ${change.variable} from ${change.clause} in "${change.directive}"`;
    case 'variable-moved':
      return `moves ${change.variable} from ${change.from} to ${change.to} in "${change.directive}"`;
    default:
      return `${change.kind} in "${change.directive}"`;
  }
}
