// `this` in a data clause: gcc allows it only in `declare simd`. Members are reached through it
// whatever the clause says, so the entry goes.
import { removeEntries } from './clauses.js';
import { nameAt, type Rule } from './rule.js';

export const thisInClause: Rule = {
  name: 'remove-this',
  apply(input) {
    const removed = input.state.directive.clauses.some((clause) =>
      (clause.vars ?? []).some((entry) => entry.trim() === 'this'),
    );
    const directive = removeEntries(input.state.directive, (entry) => entry.trim() === 'this');
    // clang's wording also fits other non-variables, so its column must point at `this`.
    const resolved = removed
      ? input.errors.filter(
          (message) =>
            /^'this' allowed in OpenMP only/.test(message.message) ||
            (/^expected variable name or data member of current class/.test(message.message) &&
              nameAt(input.lines, message) === 'this'),
        )
      : [];
    return { kind: 'result', state: { ...input.state, directive }, resolved };
  },
};
