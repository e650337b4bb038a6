// The loop's own iteration variable in `firstprivate` or `reduction`: OpenMP makes it private
// already and gcc and clang refuse those clauses for it. It is removed from the clause named.
import type { FileDiagnostic } from './rule.js';
import { removeEntries } from './clauses.js';
import { nameAt, type Rule, unchanged } from './rule.js';

const ITERATION_VARIABLE = /^iteration variable '([^']+)' should not be (\w+)/;
// clang: "loop iteration variable in the associated loop of 'omp parallel for' directive may not be
// firstprivate, predetermined as private", its column on the variable in the loop header.
const CLANG_ITERATION_VARIABLE =
  /^loop iteration variable in the associated loop of '[^']+' directive may not be (\w+)/;

export const iterationVariable: Rule = {
  name: 'drop-iteration-variable',
  apply(input) {
    const reported = input.errors.flatMap((message) => {
      const match = ITERATION_VARIABLE.exec(message.message);
      if (match) return [{ message, name: match[1]!, clause: match[2]! }];
      const clang = CLANG_ITERATION_VARIABLE.exec(message.message);
      const name = clang ? nameAt(input.lines, message) : null;
      return clang && name !== null ? [{ message, name, clause: clang[1]! }] : [];
    });
    if (reported.length === 0) return unchanged(input);
    let directive = input.state.directive;
    const resolved: FileDiagnostic[] = [];
    for (const hit of reported) {
      const present = directive.clauses.some(
        (clause) => clause.name === hit.clause && (clause.vars ?? []).includes(hit.name),
      );
      if (!present) continue;
      directive = removeEntries(directive, (entry, clause) => entry === hit.name && clause.name === hit.clause);
      resolved.push(hit.message);
    }
    return { kind: 'result', state: { ...input.state, directive }, resolved };
  },
};
