// The patch generator writes pipeline dependences as `depends(...)`; OpenMP spells it `depend`.
import { nameAt, type Rule, unchanged } from './rule.js';

export const dependSpelling: Rule = {
  name: 'spell-depend',
  apply(input) {
    const { directive } = input.state;
    if (!directive.clauses.some((clause) => clause.name === 'depends')) return unchanged(input);
    const clauses = directive.clauses.map((clause) =>
      clause.name === 'depends' ? { ...clause, name: 'depend' } : clause,
    );
    // gcc names the word; clang's "extra tokens … are ignored" puts its column on it.
    const resolved = input.errors.filter(
      (message) => /before 'depends'/.test(message.message) || nameAt(input.lines, message) === 'depends',
    );
    return { kind: 'result', state: { ...input.state, directive: { ...directive, clauses } }, resolved };
  },
};
