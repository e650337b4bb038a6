// A name in two data-sharing clauses: keep the strongest (reduction, then lastprivate, then
// firstprivate, then private, then shared). firstprivate together with lastprivate is legal
// OpenMP and stays.
import type { Clause } from '../../patch/openmp.js';
import { isDataSharing, removeEntries } from './clauses.js';
import { errorsAt, errorsNaming, type Rule, unchanged } from './rule.js';

const STRENGTH = ['reduction', 'lastprivate', 'firstprivate', 'private', 'shared'];

export const duplicateDataSharing: Rule = {
  name: 'keep-strongest-data-sharing',
  apply(input) {
    const clausesByName = new Map<string, string[]>();
    for (const clause of input.state.directive.clauses) {
      if (!isDataSharing(clause)) continue;
      for (const entry of clause.vars!) clausesByName.set(entry, [...(clausesByName.get(entry) ?? []), clause.name]);
    }
    const keep = new Map<string, Set<string>>();
    for (const [entry, names] of clausesByName) {
      if (names.length < 2) continue;
      const kinds = new Set(names);
      if (kinds.size === 2 && kinds.has('firstprivate') && kinds.has('lastprivate') && names.length === 2) continue;
      keep.set(entry, strongest(kinds));
    }
    if (keep.size === 0) return unchanged(input);
    // One occurrence per kept clause: the first reduction (or other) clause naming it wins.
    const seen = new Set<string>();
    const directive = removeEntries(input.state.directive, (entry: string, clause: Clause) => {
      const kept = keep.get(entry);
      if (!kept || !isDataSharing(clause)) return false;
      const key = `${clause.name}:${entry}`;
      if (!kept.has(clause.name) || seen.has(key)) return true;
      seen.add(key);
      return false;
    });
    // gcc names the variable; clang says "shared variable cannot be reduction" with its column on it.
    const resolved = [
      ...errorsNaming(input.errors, /^'([^']+)' appears more than once in data clauses/),
      ...errorsAt(input.errors, input.lines, /^\w+ variable cannot be \w+$/),
    ]
      .filter((hit) => keep.has(hit.name))
      .map((hit) => hit.message);
    return { kind: 'result', state: { ...input.state, directive }, resolved };
  },
};

function strongest(kinds: Set<string>): Set<string> {
  if (kinds.has('firstprivate') && kinds.has('lastprivate') && !kinds.has('reduction')) {
    return new Set(['firstprivate', 'lastprivate']);
  }
  const best = STRENGTH.find((name) => kinds.has(name));
  return new Set(best ? [best] : []);
}
