// `collapse(n)` over loops that are not perfectly nested (or whose inner bounds read an outer
// index): lowered to the depth that is (a collapse of 1 is the plain loop, so the clause goes).
import { collapsibleNest } from '../collapse-nest.js';
import { nestedLoop } from '../scope.js';
import { type Rule, unchanged } from './rule.js';

const COLLAPSE_ERROR = /perfectly nested|not enough (for )?loops|collapse|^expected \d+ for loops after/;

export const collapseDepth: Rule = {
  name: 'lower-collapse',
  apply(input) {
    const { directive } = input.state;
    const index = directive.clauses.findIndex((clause) => clause.name === 'collapse');
    const requested = index >= 0 ? Number(directive.clauses[index]!.args) : NaN;
    if (!Number.isInteger(requested) || input.site.lookup.kind !== 'loop') return unchanged(input);
    const { depth } = collapsibleNest(input.site.lookup.loop, input.lines, requested);
    if (depth >= requested) return unchanged(input);
    const clauses = [...directive.clauses];
    if (depth <= 1) clauses.splice(index, 1);
    else clauses[index] = { name: 'collapse', args: String(depth) };
    // gcc reads the intervening code of an over-collapsed nest as loop header parts, so errors
    // inside it (a local there reported undeclared) go away with the collapse.
    const innermost = nestedLoop(input.site.lookup.loop, depth);
    const resolved = input.errors.filter(
      (message) => COLLAPSE_ERROR.test(message.message) || message.line - 1 > innermost.startPosition.row,
    );
    return { kind: 'result', state: { ...input.state, directive: { ...directive, clauses } }, resolved };
  },
};
