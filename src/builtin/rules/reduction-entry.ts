// Older explorer output writes a reduction entry into another variable list: `shared(A,+:B)`
// (gcc: "expected ')' before '+' token", g++: "expected unqualified-id before '+' token", clang:
// "expected expression"). The entry means what it says: `B` is reduced with `+`. The list is split
// into `shared(A) reduction(+:B)`; every other entry stays where it was.
import type { Clause, Directive } from '../../patch/openmp.js';
import type { Rule } from './rule.js';

const LISTS = new Set(['shared', 'private', 'firstprivate', 'lastprivate']);
const REDUCTION_ENTRY = /^\s*([-+*&|^]|&&|\|\||max|min)\s*:\s*([A-Za-z_][\w.[\]:>-]*)\s*$/;
const SYNTAX_ERROR =
  /^expected '\)' before '(?:[-+*&|^]|&&|\|\|)' token$|^expected unqualified-id before '(?:[-+*&|^]|&&|\|\|)' token$|^expected expression$/;

export const reductionEntry: Rule = {
  name: 'split-reduction-entry',
  apply(input) {
    const { directive } = input.state;
    const split = splitReductionEntries(directive);
    if (split === null) return { kind: 'result', state: input.state, resolved: [] };
    const rows = new Set(Array.from({ length: input.lineCount }, (_, offset) => input.row + offset + 1));
    const resolved = input.errors.filter((error) => rows.has(error.line) && SYNTAX_ERROR.test(error.message));
    return { kind: 'result', state: { ...input.state, directive: split }, resolved };
  },
};

/** The directive with each `op:name` entry of a non-reduction list moved to `reduction(op:…)`; null when there is none. */
function splitReductionEntries(directive: Directive): Directive | null {
  const reductions = new Map<string, string[]>();
  let found = false;
  const clauses: Clause[] = [];
  for (const clause of directive.clauses) {
    if (!LISTS.has(clause.name) || clause.args === null || clause.args === undefined) {
      clauses.push(clause);
      continue;
    }
    const kept: string[] = [];
    for (const entry of clause.args.split(',')) {
      const match = REDUCTION_ENTRY.exec(entry);
      if (match) {
        found = true;
        reductions.set(match[1]!, [...(reductions.get(match[1]!) ?? []), match[2]!]);
      } else kept.push(entry.trim());
    }
    if (kept.length === clause.args.split(',').length) clauses.push(clause);
    else if (kept.length > 0) clauses.push({ name: clause.name, args: kept.join(','), vars: kept });
  }
  if (!found) return null;
  for (const [operator, vars] of reductions) {
    const existing = clauses.findIndex((clause) => clause.name === 'reduction' && clause.modifier === operator);
    if (existing >= 0) {
      const merged = [...new Set([...(clauses[existing]!.vars ?? []), ...vars])];
      clauses[existing] = { ...clauses[existing]!, vars: merged, args: `${operator}:${merged.join(',')}` };
    } else clauses.push({ name: 'reduction', modifier: operator, vars, args: `${operator}:${vars.join(',')}` });
  }
  return { ...directive, clauses };
}
