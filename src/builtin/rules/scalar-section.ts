// An array section on a variable that is neither an array nor a pointer: `reduction(+:parts[0:4])`
// where `parts` is a plain `double` (DiscoPoP read its accesses as an array's). gcc says "'parts'
// does not have pointer or array type", clang "subscripted value is not an array or pointer",
// neither mentions the reduction. The scalar itself is what the loop reduces, so the entry
// becomes `parts`, also when its type is a typedef of an arithmetic type (`real_t parts`), which the
// translation unit resolves. A class type (a `std::vector`) is left alone: no section of it can be
// reduced.
import { leadingIdentifier, replaceEntry } from './clauses.js';
import { reductionEntryAt, type FileDiagnostic, type Rule } from './rule.js';
import { isArithmeticTypedef } from './source-facts.js';

const NOT_ARRAY = /^'([^']+)' does not have pointer or array type|^subscripted value is not an array or pointer/;

export const scalarSection: Rule = {
  name: 'drop-section-of-scalar',
  apply(input) {
    let directive = input.state.directive;
    const resolved: FileDiagnostic[] = [];
    for (const error of input.errors) {
      const match = NOT_ARRAY.exec(error.message);
      if (!match) continue;
      const name = match[1] ?? reductionEntryAt(input.lines, error);
      const entry = directive.clauses
        .find((clause) => clause.name === 'reduction')
        ?.vars?.find((entryText) => /\[/.test(entryText) && leadingIdentifier(entryText) === name);
      const declared = name === null ? undefined : input.site.visible.get(name);
      if (entry === undefined || !declared || declared.isArray || declared.isPointer || declared.isReference) continue;
      if (declared.typeName !== null && !isArithmeticTypedef(input.types.root, declared.typeName)) continue;
      directive = replaceEntry(directive, 'reduction', entry, name!);
      resolved.push(error);
    }
    return { kind: 'result', state: { ...input.state, directive }, resolved };
  },
};
