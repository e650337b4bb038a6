// A const object in `private`/`lastprivate`: OpenMP allows it only in `shared` or `firstprivate`.
// The loop cannot write it, so sharing it keeps the meaning; constructs without a data
// environment of their own (`for`, `simd`) get `firstprivate` instead.
import { addEntry, allowsShared, hasEntry, removeEntries } from './clauses.js';
import { errorsAt, errorsNaming, type Rule } from './rule.js';

const MOVABLE = new Set(['private', 'lastprivate']);

export const constObjects: Rule = {
  name: 'move-const-to-shared',
  apply(input) {
    const reported = [
      ...errorsNaming(input.errors, /^'const' qualified '([^']+)'/),
      ...errorsAt(input.errors, input.lines, /^const-qualified variable cannot be \w+/),
    ];
    const names = new Set(reported.map((hit) => hit.name));
    for (const clause of input.state.directive.clauses) {
      if (!MOVABLE.has(clause.name)) continue;
      for (const entry of clause.vars ?? []) {
        const declaration = input.site.visible.get(entry);
        if (declaration?.isConst && !declaration.isReference) names.add(entry);
      }
    }
    let directive = input.state.directive;
    const moved = new Set<string>();
    for (const name of names) {
      if (!directive.clauses.some((clause) => MOVABLE.has(clause.name) && (clause.vars ?? []).includes(name))) continue;
      directive = removeEntries(directive, (entry, clause) => entry === name && MOVABLE.has(clause.name));
      const target = allowsShared(directive) ? 'shared' : 'firstprivate';
      if (!hasEntry(directive, 'firstprivate', name) && !hasEntry(directive, 'shared', name))
        directive = addEntry(directive, target, name);
      moved.add(name);
    }
    const resolved = reported.filter((hit) => moved.has(hit.name)).map((hit) => hit.message);
    return { kind: 'result', state: { ...input.state, directive }, resolved };
  },
};
