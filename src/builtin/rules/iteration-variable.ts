// The loop's own iteration variable in `firstprivate` or `reduction`: OpenMP makes it private
// already and gcc refuses those clauses for it. It is removed from the clause gcc names.
import type { CompilerMessage } from '../compiler-messages.js';
import { removeEntries } from './clauses.js';
import { type Rule, unchanged } from './rule.js';

const ITERATION_VARIABLE = /^iteration variable '([^']+)' should not be (\w+)/;

export const iterationVariable: Rule = {
  name: 'drop-iteration-variable',
  apply(input) {
    const reported = input.errors.flatMap((message) => {
      const match = ITERATION_VARIABLE.exec(message.text);
      return match ? [{ message, name: match[1]!, clause: match[2]! }] : [];
    });
    if (reported.length === 0) return unchanged(input);
    let directive = input.state.directive;
    const resolved: CompilerMessage[] = [];
    for (const hit of reported) {
      const present = directive.clauses.some((clause) => clause.name === hit.clause && (clause.vars ?? []).includes(hit.name));
      if (!present) continue;
      directive = removeEntries(directive, (entry, clause) => entry === hit.name && clause.name === hit.clause);
      resolved.push(hit.message);
    }
    return { kind: 'result', state: { ...input.state, directive }, resolved };
  },
};
