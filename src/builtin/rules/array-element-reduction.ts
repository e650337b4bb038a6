// A pointer or an array parameter in a reduction, which OpenMP cannot reduce as a pointer: one
// element the loop does not change is reduced through a local copy (local-copy.ts) or, at a
// constant index, as the section `hist[c:1]`; elements that change with the loop through an
// array section over the extent the code states (array-uses.ts). Never a section of a file-scope
// object: clang 14 and 19 build `reduction(+:hist[0:n])` over a global without privatizing it,
// so every thread updates the shared original (a race gcc does not have).
import type { SyntaxNode } from '../syntax.js';
import { declarationsOf, isDeclarationNode } from '../declarations.js';
import { elementUses, sectionOf, type ElementUse } from './array-uses.js';
import { readsKeptApart } from './kept-apart.js';
import { replaceEntry } from './clauses.js';
import { copyEdits, loopOf, NOT_FOUND, onDirective, reductionEntries, type Copy } from './local-copy.js';
import { reductionEntryAt, type Rule, type RuleInput, unchanged } from './rule.js';
import { findRecord, freshName, identifiersOf, loopVariablesOf, NOT_AFTER_ACCESS, writtenIn } from './source-facts.js';

/** One operand type of clang's pointer wording, with the `(aka 'double *')` clang adds for a typedef. */
const CLANG_POINTER_TYPE = "'[^']*(?:\\*|\\(\\*\\)(?:\\[[^'\\]]*\\])+)'(?: \\(aka '[^']*'\\))?";
/** clang's word for a pointer in a reduction: `invalid operands to binary expression ('int *' and 'int *')`, `('double (*)[10]' and …)` for a 2-D array parameter, `('real_t *' (aka 'double *') and …)`. */
const CLANG_POINTER = new RegExp(
  `^invalid operands to binary expression \\(${CLANG_POINTER_TYPE} and ${CLANG_POINTER_TYPE}\\)`,
);

/**
 * A pointer, or an array parameter (a pointer too, to the compiler), in a reduction. When the loop
 * touches one element that stays the same through it (`hist[bin]`, `x[i]` inside a `j` loop):
 * a local copy of that element, or the section `hist[c:1]` for a constant index. When it updates
 * elements that change with the loop, and every use of the array in the loop is such an update:
 * an array-section reduction over an extent the code states (the declaration, an allocation in
 * the function, or the range of the loop whose variable is the index). A section privatizes the
 * whole array, so any other read or write through it in the loop would see the private copy:
 * then the rule declines.
 */
export const arrayElementReduction: Rule = {
  name: 'reduce-array-element',
  apply(input) {
    const arrays = reductionEntries(input).filter(({ entry }) => {
      const declaration = input.site.visible.get(entry);
      return (
        declaration !== undefined &&
        declaration.kind !== 'function' &&
        (declaration.isPointer || (declaration.isArray && declaration.kind === 'parameter')) &&
        (declaration.typeName === null || findRecord(input.types.root, declaration.typeName) === null)
      );
    });
    if (arrays.length === 0) return unchanged(input);
    const loop = loopOf(input);
    if (typeof loop === 'string') return { kind: 'declined', reason: loop };
    let state = input.state;
    const fixed = new Set<string>();
    for (const { entry, operator } of arrays) {
      const uses = elementUses(loop.text, entry, operator);
      if (typeof uses === 'string') return { kind: 'declined', reason: uses };
      const elements = new Set(uses.map((use) => use.text));
      const varying = uses
        .flatMap((use) => use.indices)
        .flatMap(identifiersOf)
        .find((id) => loopVariablesOf(loop).has(id) || writtenIn(input, loop, [id]) !== null);
      const single =
        elements.size === 1 && varying === undefined
          ? { element: uses[0]!, reads: undefined }
          : (besideReadsKeptApart(input, loop, entry, uses) ?? readsKeptApart(input, loop, entry, uses));
      if (single !== null) {
        const { element } = single;
        const constant = element.indices.length === 1 && /^\d+[uUlL]*$/.test(element.indices[0]!);
        const global = declaredAtFileScope(input, loop, entry);
        // The loop as the only statement of an unbraced outer loop (`for (i…) for (j…) x[i] += …`)
        // has no block for a local copy; when it touches the array only at that element, a
        // one-element section (`x[i:1]`) reduces exactly it, under both compilers.
        const unbraced =
          loop.parent?.type !== 'compound_statement' && single.reads === undefined && uses.every((use) => use.update);
        if (global && unbraced && !constant) return { kind: 'declined', reason: clangSectionFault(entry) };
        if ((constant && !global) || unbraced) {
          state = {
            ...state,
            directive: replaceEntry(
              state.directive,
              'reduction',
              entry,
              `${entry}${element.indices.map((index) => `[${index}:1]`).join('')}`,
            ),
          };
        } else {
          const declaration = input.site.visible.get(entry)!;
          const copy: Copy = {
            original: element.text,
            type: declaration.typeText,
            base: entry,
            local: freshName(
              input,
              `${entry}_${constant ? element.indices[0]!.replace(/\D/g, '') : element.indices.flatMap(identifiersOf).join('_')}`,
            ),
            pattern: new RegExp(
              `${NOT_AFTER_ACCESS}\\b${entry}${element.indices.map((index) => `\\s*\\[\\s*${spaced(index)}\\s*\\]`).join('')}`,
              'g',
            ),
            ...(single.reads !== undefined && { basePattern: single.reads }),
          };
          const edits = copyEdits({ ...input, state }, loop, copy);
          if (typeof edits === 'string') return { kind: 'declined', reason: edits };
          state = { ...state, directive: replaceEntry(state.directive, 'reduction', entry, copy.local), edits };
        }
      } else {
        const other = uses.find((use) => !use.update);
        if (other !== undefined) {
          return {
            kind: 'declined',
            reason: `'${entry}' is updated at elements that change in the loop and also used at '${other.text}' other than by '${operator}': a section reduction privatizes all of '${entry}', so that use would see the private copy`,
          };
        }
        const section = sectionOf(input, loop, entry, uses);
        if ('reason' in section) return { kind: 'declined', reason: section.reason };
        if (declaredAtFileScope(input, loop, entry)) return { kind: 'declined', reason: clangSectionFault(entry) };
        state = { ...state, directive: replaceEntry(state.directive, 'reduction', entry, section.section) };
      }
      fixed.add(entry);
    }
    const resolved = onDirective(input).filter(
      (message) =>
        fixed.has(NOT_FOUND.exec(message.message)?.[1] ?? '') ||
        (CLANG_POINTER.test(message.message) && fixed.has(reductionEntryAt(input.lines, message) ?? '')),
    );
    return { kind: 'result', state, resolved };
  },
};

/**
 * `x[i] -= L[i][j] * x[j]` in a `j < i` loop (a triangular solve): every update is to one element
 * that stays the same through the loop, and every other use reads an element that the loop's own
 * condition keeps apart from it. A local copy of the updated element then leaves those reads
 * reading what they read before; `reads` is the pattern of `entry` that may stay in the loop.
 */
function besideReadsKeptApart(
  input: RuleInput,
  loop: SyntaxNode,
  entry: string,
  uses: ElementUse[],
): { element: ElementUse; reads: string } | null {
  const updates = uses.filter((use) => use.update);
  const reads = uses.filter((use) => !use.update);
  const element = updates[0];
  if (
    element === undefined ||
    reads.length === 0 ||
    new Set(updates.map((use) => use.text)).size !== 1 ||
    uses.some((use) => use.indices.length !== 1)
  )
    return null;
  const fixed = element.indices[0]!;
  if (!/^[A-Za-z_]\w*$/.test(fixed) || loopVariablesOf(loop).has(fixed) || writtenIn(input, loop, [fixed]) !== null)
    return null;
  const apart = variableKeptApart(loop, fixed);
  if (apart === null || reads.some((use) => use.indices[0] !== apart)) return null;
  return { element, reads: `${entry}(?!\\s*\\[\\s*${apart}\\s*\\])` };
}

/**
 * The loop variable that never equals `index` in the body: kept strictly below or above it by the
 * condition (`j < i`), or started past it and only counted up (`j = i + 1; …; j++`), and never
 * assigned in the body.
 */
function variableKeptApart(loop: SyntaxNode, index: string): string | null {
  const variables = loopVariablesOf(loop);
  const condition = /^\s*([A-Za-z_]\w*)\s*[<>]\s*([A-Za-z_]\w*)\s*$/.exec(
    loop.childForFieldName('condition')?.text ?? '',
  );
  const start = /([A-Za-z_]\w*)\s*=\s*([A-Za-z_]\w*)\s*\+\s*[1-9]\d*\s*;?\s*$/.exec(
    loop.childForFieldName('initializer')?.text ?? '',
  );
  const update = loop.childForFieldName('update')?.text ?? '';
  const variable =
    condition?.[1] === index
      ? condition[2]!
      : condition?.[2] === index
        ? condition[1]!
        : start?.[2] === index &&
            new RegExp(
              `^\\s*(?:\\+\\+\\s*${start[1]}|${start[1]}\\s*\\+\\+|${start[1]}\\s*\\+=\\s*[1-9]\\d*)\\s*$`,
            ).test(update)
          ? start[1]!
          : null;
  if (variable === null || !variables.has(variable)) return null;
  const body = loop.childForFieldName('body')?.text ?? '';
  const assigned = new RegExp(
    `\\b${variable}\\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)|\\b${variable}\\s*(?:\\+\\+|--)|(?:\\+\\+|--)\\s*${variable}\\b`,
  );
  return assigned.test(body) ? null : variable;
}

/**
 * `name` is declared at file (or namespace) scope: not a parameter, and no block or loop header
 * around `loop` declares it. A function-`static` object is a block's and is privatized.
 */
function declaredAtFileScope(input: RuleInput, loop: SyntaxNode, name: string): boolean {
  if (input.site.visible.get(name)?.kind !== 'variable') return false;
  let child = loop;
  for (let scope = loop.parent; scope; child = scope, scope = scope.parent) {
    const declared: SyntaxNode[] = [];
    if (scope.type === 'compound_statement') {
      for (const sibling of scope.namedChildren) {
        if (!sibling || sibling.startIndex >= child.startIndex) break;
        if (isDeclarationNode(sibling)) declared.push(sibling);
      }
    } else if (scope.type === 'for_statement') {
      const init = scope.childForFieldName('initializer');
      if (init && isDeclarationNode(init)) declared.push(init);
    }
    if (declared.some((node) => declarationsOf(node, 'variable').some((d) => d.name === name))) return false;
  }
  return true;
}

/** Why no section over the file-scope `entry` is written (a pointer has no whole-array form). */
function clangSectionFault(entry: string): string {
  return `'${entry}' is a file-scope pointer: clang (14 to 19) builds an array-section reduction over a file-scope object without privatizing it, so the threads would update the shared original; reduce through a local pointer to it, which no rule writes here`;
}

function spaced(index: string): string {
  return index
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .split('')
    .join('\\s*');
}
