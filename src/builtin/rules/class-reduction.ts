// A reduction over an object of class type (`std::complex<double>`, a user class with
// `operator+=`): gcc knows no reduction for it. A `#pragma omp declare reduction` for the type,
// written above the function, combines with the class's own operator and starts each private
// copy value-initialized (`T()`), which is the identity of `+`, `-`, `|` and `^`; the generated
// directive stays as it is. C structs have no operators, so they are handed on.
import type { SyntaxNode } from '../syntax.js';
import { findRecord } from './source-facts.js';
import { addEdits, reductionEntryAt, type Rule, unchanged } from './rule.js';

const NOT_FOUND = /^user defined reduction not found for '([^']+)'/;
/** clang builds a combiner from the class's operator itself; it fails only where there is none. */
const CLANG_NO_COMBINER =
  /^list item of type '[^']*' is not valid for specified reduction operation|^invalid operands to binary expression \('[^'*]*' and '[^'*]*'\)/;
/** Operators whose identity is the value-initialized object (zero for the built-in types). */
const ZERO_IDENTITY = new Set(['+', '-', '|', '^']);
/** Standard class types whose compound assignment exists for each operator above that they define. */
const STANDARD_ARITHMETIC = /^(?:std::)?(?:complex|valarray)\s*</;

export const classReduction: Rule = {
  name: 'declare-class-reduction',
  apply(input) {
    const reported = input.errors.flatMap((message) => {
      const name =
        NOT_FOUND.exec(message.message)?.[1] ??
        (CLANG_NO_COMBINER.test(message.message) ? reductionEntryAt(input.lines, message) : null);
      return name !== undefined && name !== null ? [{ message, name }] : [];
    });
    const entries = reported.flatMap(({ message, name }) => {
      const clause = input.state.directive.clauses.find((c) => c.name === 'reduction' && (c.vars ?? []).includes(name));
      return clause ? [{ message, name, operator: clause.modifier ?? '' }] : [];
    });
    if (entries.length === 0) return unchanged(input);
    let edits = input.state.edits;
    for (const { name, operator } of entries) {
      const declaration = input.site.visible.get(name);
      if (!declaration || declaration.kind === 'function')
        return declined(`'${name}' is not a variable visible at the directive`);
      if (declaration.isPointer || declaration.isArray || declaration.isReference)
        return declined(
          `'${name}' is a pointer, array or reference of class type; a declared reduction needs an object`,
        );
      const type = declaration.typeText.replace(/\b(const|volatile|static)\s+/g, '').trim();
      // A rule before this one declared a member-wise reduction for the struct (aggregate-reduction.ts).
      if ([...edits.before.values()].flat().some((line) => line.includes(`declare reduction(${operator} : ${type} :`)))
        continue;
      if (!input.isCxx)
        return declined(
          `'${name}' is a struct ('${type}'): C has no operator to combine two of them, so the reduction needs a combiner written by hand`,
        );
      if (!ZERO_IDENTITY.has(operator))
        return declined(
          `'${name}': the identity of '${operator}' for '${type}' is not its value-initialized state; the initializer must be written by hand`,
        );
      if (type === '' || /\bauto\b|\bdecltype\b/.test(type)) return declined(`'${name}': its type is not written out`);
      const combiner = combinerFor(input.types.root, input.types.lines, type, declaration.typeName, operator);
      if (combiner === null)
        return declined(
          `'${name}' has type '${type}' with no 'operator${operator}=' or 'operator${operator}' this file shows`,
        );
      const fn = enclosingFunction(input.site.lookup.kind === 'loop' ? input.site.lookup.loop : input.site.target);
      if (!fn) return declined(`'${name}': the loop is not inside a function`);
      if (fn.parent?.type === 'template_declaration')
        return declined(`'${name}': the function is a template, so its type '${type}' cannot be named above it`);
      const row = aboveComments(input.lines, fn.startPosition.row);
      const indent = /^\s*/.exec(input.lines[fn.startPosition.row] ?? '')![0];
      const line = `${indent}#pragma omp declare reduction(${operator} : ${type} : ${combiner}) initializer(omp_priv = ${type}())`;
      if (!(edits.before.get(row) ?? []).includes(line)) edits = addEdits(edits, { before: new Map([[row, [line]]]) });
    }
    return { kind: 'result', state: { ...input.state, edits }, resolved: entries.map((entry) => entry.message) };
  },
};

function declined(reason: string) {
  return { kind: 'declined' as const, reason };
}

/** `omp_out += omp_in` when the class has the compound operator, else `omp_out = omp_out + omp_in`. */
function combinerFor(
  root: SyntaxNode,
  lines: readonly string[],
  type: string,
  typeName: string | null,
  operator: string,
): string | null {
  const op = operator === '-' ? '+' : operator;
  if (STANDARD_ARITHMETIC.test(type) && op === '+') return `omp_out ${op}= omp_in`;
  if (typeName === null) return null;
  const record = findRecord(root, typeName);
  const escaped = op.replace(/[|^+]/g, '\\$&');
  const compound = new RegExp(`operator\\s*${escaped}=\\s*\\(`);
  const binary = new RegExp(`operator\\s*${escaped}\\s*\\(`);
  // Members of the class, or free operators taking it.
  const freeOperators = lines.filter((line) => new RegExp(`\\b${typeName}\\b`).test(line));
  const texts = [record?.text ?? '', ...freeOperators];
  if (texts.some((text) => compound.test(text))) return `omp_out ${op}= omp_in`;
  if (texts.some((text) => binary.test(text))) return `omp_out = omp_out ${op} omp_in`;
  return null;
}

export function enclosingFunction(node: SyntaxNode | null): SyntaxNode | null {
  for (let current = node; current; current = current.parent)
    if (current.type === 'function_definition') return current;
  return null;
}

/** The row above the comment lines that lead into a function, so the pragma does not split them off. */
export function aboveComments(lines: readonly string[], row: number): number {
  let first = row;
  while (first > 0 && /^\s*(\/\/|\/\*|\*)/.test(lines[first - 1] ?? '')) first--;
  return first;
}
