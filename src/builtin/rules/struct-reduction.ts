// A whole struct in a reduction, which OpenMP cannot combine: each member the loop updates with
// the clause's operator is reduced through its own local copy (local-copy.ts).
import type { Directive } from '../../patch/openmp.js';
import { copyEdits, loopOf, memberCopy, NOT_FOUND, onDirective, reductionEntries } from './local-copy.js';
import { reductionEntryAt, type Rule, unchanged } from './rule.js';
import { findRecord, NOT_AFTER_ACCESS } from './source-facts.js';

/** clang, for a struct it cannot combine: no operator, or no default initialization value. */
const CLANG_NO_COMBINER =
  /^list item of type '[^']*' is not valid for specified reduction operation|^invalid operands to binary expression \('[^'*]*' and '[^'*]*'\)/;

/**
 * A whole struct in `reduction(+:m)` (C, or a C++ class the loop reaches only through its data
 * members): every member the loop updates with the clause's operator is reduced through its own
 * local copy; members the loop only reads stay in the (now shared) object. A member both read
 * and updated, or the object used as a whole, is handed on.
 */
export const structReduction: Rule = {
  name: 'reduce-struct-members',
  apply(input) {
    const structs = reductionEntries(input).filter(({ entry }) => {
      const declaration = input.site.visible.get(entry);
      return (
        declaration !== undefined &&
        declaration.kind !== 'function' &&
        !declaration.isPointer &&
        !declaration.isArray &&
        declaration.typeName !== null &&
        findRecord(input.types.root, declaration.typeName) !== null
      );
    });
    if (structs.length === 0) return unchanged(input);
    const loop = loopOf(input);
    if (typeof loop === 'string') return { kind: 'declined', reason: loop };
    let state = input.state;
    const fixed = new Set<string>();
    for (const { entry, operator } of structs) {
      const updated = updatedMembers(loop.text, entry, operator);
      if (updated === null) continue;
      if (typeof updated === 'string') return { kind: 'declined', reason: updated };
      const locals: string[] = [];
      for (const member of updated) {
        const copy = memberCopy(input, `${entry}.${member}`);
        if (typeof copy === 'string') return { kind: 'declined', reason: copy };
        // Other members stay in the object, so only this member's spelling is replaced.
        const edits = copyEdits({ ...input, state }, loop, {
          ...copy,
          base: `${entry}.${member}`,
          basePattern: `${entry}\\s*\\.\\s*${member}`,
        });
        if (typeof edits === 'string') return { kind: 'declined', reason: edits };
        state = { ...state, edits };
        locals.push(copy.local);
      }
      state = { ...state, directive: replaceEntries(state.directive, entry, locals) };
      fixed.add(entry);
    }
    const resolved = onDirective(input).filter(
      (message) =>
        fixed.has(NOT_FOUND.exec(message.message)?.[1] ?? '') ||
        (CLANG_NO_COMBINER.test(message.message) && fixed.has(reductionEntryAt(input.lines, message) ?? '')),
    );
    return { kind: 'result', state, resolved };
  },
};

/**
 * The members of `name` the loop updates with `operator` (`m.sum += …`, `m.count++` for +), or
 * null when the loop uses the object as a whole (a class with its own operator), or why not.
 */
function updatedMembers(text: string, name: string, operator: string): string[] | string | null {
  const uses = [...text.matchAll(new RegExp(`${NOT_AFTER_ACCESS}\\b${name}\\b`, 'g'))];
  const members = new Map<string, { updated: number; other: number }>();
  const compound = operator === '+' || operator === '-' ? '[-+]=' : `${operator.replace(/[|^*&]/g, '\\$&')}=`;
  for (const use of uses) {
    const rest = text.slice(use.index! + name.length);
    const access = /^\s*\.\s*([A-Za-z_]\w*)/.exec(rest);
    if (!access) return null;
    const after = rest.slice(access[0].length);
    const counts = members.get(access[1]!) ?? { updated: 0, other: 0 };
    const before = text.slice(0, use.index!);
    const increment =
      (operator === '+' || operator === '-') && (/^\s*(\+\+|--)/.test(after) || /(\+\+|--)\s*$/.test(before));
    if (new RegExp(`^\\s*${compound}(?!=)`).test(after) || increment) counts.updated++;
    else if (/^\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)|^\s*(\+\+|--)|(\+\+|--)\s*$/.test(after) || /(\+\+|--)\s*$/.test(before))
      return `'${name}.${access[1]}' is assigned in the loop other than by '${operator}'; reducing it would change what the loop computes`;
    else counts.other++;
    members.set(access[1]!, counts);
  }
  const mixed = [...members].find(([, counts]) => counts.updated > 0 && counts.other > 0);
  if (mixed)
    return `'${name}.${mixed[0]}' is both read and updated in the loop; a reduction would hide the partial sums it reads`;
  const updated = [...members].filter(([, counts]) => counts.updated > 0).map(([member]) => member);
  return updated.length > 0 ? updated : `no member of '${name}' is updated with '${operator}' in the loop`;
}

function replaceEntries(directive: Directive, entry: string, locals: string[]): Directive {
  const clauses = directive.clauses.map((clause) => {
    if (clause.name !== 'reduction' || !(clause.vars ?? []).includes(entry)) return clause;
    const vars = clause.vars!.flatMap((v) => (v === entry ? locals : [v]));
    return { ...clause, vars, args: `${clause.modifier !== undefined ? `${clause.modifier}:` : ''}${vars.join(',')}` };
  });
  return { ...directive, clauses };
}
