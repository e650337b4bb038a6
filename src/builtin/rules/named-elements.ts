// Named elements in a reduction that OpenMP cannot reduce as written: several elements of one
// array (`reduction(+:sums[0],sums[1])`: gcc says "'sums' appears more than once in data clauses";
// clang 14 builds it and computes garbage or crashes), or elements of a C++ container
// (`std::vector<double> parts(2)` with `reduction(+:parts[0],parts[1])`: "'parts' does not have
// pointer or array type" / "expected variable name, array element or array section", in a member
// function "expected variable name, data member of current class, array element or array section"). Each named
// element gets a local copy (local-copy.ts) that the loop reduces and that is stored back after it.
import { replaceEntry } from './clauses.js';
import { copyEdits, loopOf, onDirective, reductionEntries, type Copy } from './local-copy.js';
import { nameAt, NOT_A_LIST_ITEM, type Rule, type RuleInput, unchanged } from './rule.js';
import { findRecord, freshName, loopVariablesOf, writtenIn } from './source-facts.js';
import type { SyntaxNode } from '../syntax.js';

const ELEMENT = /^([A-Za-z_]\w*)\s*\[\s*([^\][]+?)\s*\]$/;
const CONTAINER = /^(?:const\s+)?(?:std\s*::\s*)?(?:vector|array)\s*<\s*([^,<>]+?)\s*(?:,[^<>]*)?>$/;
const ERRORS = [/^'([^']+)' appears more than once in data clauses/, /^'([^']+)' does not have pointer or array type/];
/** clang's words, with the column on the entry. */
const CLANG_ERRORS = [NOT_A_LIST_ITEM, /^subscripted value is not an array or pointer$/];

interface Named {
  entry: string;
  base: string;
  index: string;
}

export const namedElements: Rule = {
  name: 'reduce-named-elements',
  apply(input) {
    const named = reductionEntries(input).flatMap(({ entry }) => {
      const match = ELEMENT.exec(entry);
      return match ? [{ entry, base: match[1]!, index: match[2]! }] : [];
    });
    const bases = new Map<string, Named[]>();
    for (const element of named) bases.set(element.base, [...(bases.get(element.base) ?? []), element]);
    const chosen = [...bases].filter(
      ([base, elements]) => elements.length > 1 || containerElement(input, base) !== null,
    );
    if (chosen.length === 0) return unchanged(input);
    const loop = loopOf(input);
    if (typeof loop === 'string') return { kind: 'declined', reason: loop };
    let state = input.state;
    for (const [base, elements] of chosen) {
      const type = elementType(input, base, elements);
      if (typeof type !== 'string') return { kind: 'declined', reason: type.reason };
      const unchangedIndex = elements.find(({ index }) => !/^\d+[uUlL]*$/.test(index) && !fixedIn(input, loop, index));
      if (unchangedIndex)
        return {
          kind: 'declined',
          reason: `'${unchangedIndex.entry}' names an element that changes in the loop; a local copy of it would not follow`,
        };
      // The other named elements are copies too: only a use of the array beyond them is a problem.
      const others = `${base}(?!\\s*\\[\\s*(?:${elements.map(({ index }) => spaced(index)).join('|')})\\s*\\])`;
      for (const { entry, index } of elements) {
        const copy: Copy = {
          original: `${base}[${index}]`,
          type,
          base,
          basePattern: others,
          local: freshName({ ...input, lines: withLocals(input, state) }, `${base}_${index.replace(/\W+/g, '_')}`),
          pattern: new RegExp(`(?<![\\w.]|->|::)\\b${base}\\s*\\[\\s*${spaced(index)}\\s*\\]`, 'g'),
        };
        const edits = copyEdits({ ...input, state }, loop, copy);
        if (typeof edits === 'string') return { kind: 'declined', reason: edits };
        state = { ...state, directive: replaceEntry(state.directive, 'reduction', entry, copy.local), edits };
      }
    }
    const fixed = new Set(chosen.map(([base]) => base));
    const resolved = onDirective(input).filter(
      (message) =>
        ERRORS.some((pattern) => fixed.has(pattern.exec(message.message)?.[1] ?? '')) ||
        (CLANG_ERRORS.some((pattern) => pattern.test(message.message)) &&
          fixed.has(nameAt(input.lines, message) ?? '')),
    );
    return { kind: 'result', state, resolved };
  },
};

/** The element type of a `std::vector<T>`/`std::array<T, N>` visible at the directive, or null. */
function containerElement(input: RuleInput, base: string): string | null {
  const declaration = input.site.visible.get(base);
  if (!declaration || declaration.kind === 'function' || declaration.isPointer || declaration.isArray) return null;
  return CONTAINER.exec(declaration.typeText.trim())?.[1] ?? null;
}

/** The type a local copy of one element has: the container's element type, or a one-dimensional array's type when it is not a record. */
function elementType(input: RuleInput, base: string, elements: Named[]): string | { reason: string } {
  const declaration = input.site.visible.get(base);
  const entry = elements[0]!.entry;
  if (!declaration || declaration.kind === 'function')
    return { reason: `'${entry}': '${base}' is not a variable visible at the directive` };
  const element = containerElement(input, base);
  const type =
    element ??
    (declaration.isArray && !declaration.isPointer && declaration.extents?.length === 1 ? declaration.typeText : null);
  if (type === null)
    return {
      reason: `'${entry}': '${base}' is neither a one-dimensional array nor a std::vector or std::array, so the element's type is not known`,
    };
  const plain = type.replace(/\b(const|volatile|static)\s+/g, '').trim();
  if (plain === '' || /\bauto\b/.test(plain) || findRecord(input.types.root, plain) !== null)
    return { reason: `'${entry}': the element type '${plain}' is not a plain value` };
  return plain;
}

/** An index the loop neither declares nor assigns. */
function fixedIn(input: RuleInput, loop: SyntaxNode, index: string): boolean {
  return /^[A-Za-z_]\w*$/.test(index) && !loopVariablesOf(loop).has(index) && writtenIn(input, loop, [index]) === null;
}

/** The lines with the locals made so far, so that two copies never get the same name. */
function withLocals(input: RuleInput, state: RuleInput['state']): string[] {
  return [...input.lines, ...[...state.edits.before.values()].flat()];
}

function spaced(index: string): string {
  return index
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .split('')
    .join('\\s*');
}
