// `collapse(n)` over loops that are not perfectly nested (or whose inner bounds read an outer
// index): lowered to the depth that is (a collapse of 1 is the plain loop, so the clause goes).
// Two of gcc's faults with non-rectangular nests are lowered the same way: the triangular nest
// over unsigned int indices it miscompiles (the static check's finding), and outer and inner
// indices of different types, which it rejects ("outer iteration variable 'i' used in
// initializer expression has type other than 'int'").
import { collapsibleNest } from '../collapse-nest.js';
import { nestedLoop } from '../scope.js';
import { loopVariablesOf } from './source-facts.js';
import { type Rule, unchanged } from './rule.js';
import { addEntry, hasEntry, removeEntries } from './clauses.js';
import type { Directive } from '../../patch/openmp.js';
import type { SyntaxNode } from '../syntax.js';

const COLLAPSE_ERROR =
  /perfectly nested|not enough (for )?loops|collapse|^expected \d+ for loops after|has type other than '[^']+'$/;
const GCC_MISCOMPILES = /^collapse\(\d+\) over a triangular nest that gcc miscompiles/;
const MIXED_TYPES = /^outer iteration variable '([^']+)' used in .* has type other than '[^']+'$/;

export const collapseDepth: Rule = {
  name: 'lower-collapse',
  apply(input) {
    const { directive } = input.state;
    const index = directive.clauses.findIndex((clause) => clause.name === 'collapse');
    const requested = index >= 0 ? Number(directive.clauses[index]!.args) : NaN;
    if (!Number.isInteger(requested) || input.site.lookup.kind !== 'loop') return unchanged(input);
    const loop = input.site.lookup.loop;
    const byGcc = input.errors.some((error) => GCC_MISCOMPILES.test(error.message));
    const gcc = byGcc ? { typeOf: (name: string) => input.site.visible.get(name)?.typeText ?? null } : undefined;
    const mixed = input.errors.flatMap((error) => MIXED_TYPES.exec(error.message)?.[1] ?? []);
    const depth = Math.min(
      collapsibleNest(loop, input.lines, requested, gcc).depth,
      ...mixed.map((name) => levelIndexedBy(loop, requested, name)),
    );
    if (depth >= requested) return unchanged(input);
    const clauses = [...directive.clauses];
    if (depth <= 1) clauses.splice(index, 1);
    else clauses[index] = { name: 'collapse', args: String(depth) };
    // gcc reads the intervening code of an over-collapsed nest as loop header parts, so errors
    // inside it (a local there reported undeclared) go away with the collapse.
    const innermost = nestedLoop(loop, depth);
    const resolved = input.errors.filter(
      (message) => COLLAPSE_ERROR.test(message.message) || message.line - 1 > innermost.startPosition.row,
    );
    const lowered = privateInnerIndices({ ...directive, clauses }, loop, depth, requested);
    return { kind: 'result', state: { ...input.state, directive: lowered }, resolved };
  },
};

/**
 * The loops the collapse no longer covers keep private indices. Under `collapse(n)` every index
 * of the nest is private; below the collapse, C makes only the associated loop's index private,
 * so an index declared before the nest (`unsigned i, j; … for (j = i; …)`) would be shared by the
 * threads and the lowered loop would race.
 */
function privateInnerIndices(directive: Directive, loop: SyntaxNode, depth: number, requested: number): Directive {
  let result = directive;
  for (let level = Math.max(depth, 1) + 1; level <= requested; level++) {
    const inner = nestedLoop(loop, level);
    if (inner.childForFieldName('initializer')?.type === 'declaration') continue;
    for (const name of loopVariablesOf(inner)) {
      if (['private', 'firstprivate', 'lastprivate'].some((clause) => hasEntry(result, clause, name))) continue;
      result = addEntry(
        removeEntries(result, (entry, clause) => clause.name === 'shared' && entry.trim() === name),
        'private',
        name,
      );
    }
  }
  return result;
}

/** The level (1-based) of the nest whose loop has `name` as its index: the collapse stops there. */
function levelIndexedBy(loop: SyntaxNode, requested: number, name: string): number {
  for (let level = 1; level <= requested; level++) {
    if (loopVariablesOf(nestedLoop(loop, level)).has(name)) return level;
  }
  return requested;
}
