// `shared` on a construct that does not create a data environment (`#pragma omp for`, `simd`):
// the variables are already shared by the enclosing region, so the clause goes.
import { allowsShared } from './clauses.js';
import { type Rule, unchanged } from './rule.js';

export const sharedOnWorksharing: Rule = {
  name: 'drop-shared-on-worksharing',
  apply(input) {
    const { directive } = input.state;
    if (allowsShared(directive) || !directive.clauses.some((clause) => clause.name === 'shared')) {
      return unchanged(input);
    }
    const clauses = directive.clauses.filter((clause) => clause.name !== 'shared');
    const resolved = input.errors.filter((message) =>
      /^'shared' is not valid for '#pragma omp|^unexpected OpenMP clause 'shared' in directive/.test(message.message),
    );
    return { kind: 'result', state: { ...input.state, directive: { ...directive, clauses } }, resolved };
  },
};
