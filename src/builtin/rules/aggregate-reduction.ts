// A plain C struct in a reduction (`reduction(+:chk)` on NPB's `dcomplex`): C has no operator to
// combine two of them, so gcc finds no reduction ("user defined reduction not found for 'chk'")
// and clang calls the list item not valid. When every member is a number and the loop only adds
// to the struct member by member — `chk.real += …`, or through a helper macro whose expansion is
// `chk = (dcomplex){(chk).real+…, (chk).imag+…}` — a `declare reduction` that adds member by
// member, starting each private copy at zero, computes what the loop computes. It is written with
// the members themselves, never the project's macros (a compiler may reject them at file scope).
import type { SyntaxNode } from '../syntax.js';
import { withoutComments } from './array-uses.js';
import { aboveComments, enclosingFunction } from './class-reduction.js';
import { addEdits, reductionEntryAt, type Rule, type RuleInput, unchanged } from './rule.js';
import { findRecord, NOT_AFTER_ACCESS } from './source-facts.js';

const NOT_FOUND = /^user defined reduction not found for '([^']+)'/;
const CLANG_NOT_VALID = /^list item of type '[^']*' is not valid for specified reduction operation/;
const NUMBER_TYPE = /^(?:(?:unsigned|signed|long|short|int|char|float|double|_Bool|size_t|u?int\d+_t)\s*)+$/;

export const aggregateReduction: Rule = {
  name: 'declare-member-wise-reduction',
  apply(input) {
    if (input.isCxx) return unchanged(input);
    const reported = input.errors.flatMap((message) => {
      const name =
        NOT_FOUND.exec(message.message)?.[1] ??
        (CLANG_NOT_VALID.test(message.message) ? reductionEntryAt(input.lines, message) : null);
      const clause = name
        ? input.state.directive.clauses.find((c) => c.name === 'reduction' && (c.vars ?? []).includes(name))
        : undefined;
      return name && clause ? [{ message, name, operator: clause.modifier ?? '' }] : [];
    });
    const structs = reported.filter(({ name }) => {
      const declaration = input.site.visible.get(name);
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
    let edits = input.state.edits;
    for (const { name, operator } of structs) {
      const declaration = input.site.visible.get(name)!;
      const type = declaration.typeText.replace(/\b(const|volatile|static)\s+/g, '').trim();
      const members = numberMembers(findRecord(input.types.root, declaration.typeName!)!);
      if (members === null)
        return declined(
          `'${name}' is a struct ('${type}') with a member that is not a number, so the reduction needs a combiner written by hand`,
        );
      if (operator !== '+')
        return declined(
          `'${name}' is a struct ('${type}') reduced with '${operator}': only a member-wise '+' starts from zero, so the reduction needs a combiner written by hand`,
        );
      const how = memberWiseAdds(input, name, members, type);
      if (how !== null)
        return declined(`'${name}' is a struct ('${type}'): ${how}, so the reduction needs a combiner written by hand`);
      const fn = enclosingFunction(input.site.lookup.kind === 'loop' ? input.site.lookup.loop : input.site.target);
      if (!fn) return declined(`'${name}': the loop is not inside a function`);
      const row = aboveComments(input.lines, fn.startPosition.row);
      const indent = /^\s*/.exec(input.lines[fn.startPosition.row] ?? '')![0];
      const combiner = members.map((member) => `omp_out.${member} += omp_in.${member}`).join(', ');
      const line = `${indent}#pragma omp declare reduction(+ : ${type} : ${combiner}) initializer(omp_priv = {0})`;
      if (!(edits.before.get(row) ?? []).includes(line)) edits = addEdits(edits, { before: new Map([[row, [line]]]) });
    }
    return { kind: 'result', state: { ...input.state, edits }, resolved: structs.map((entry) => entry.message) };
  },
};

function declined(reason: string) {
  return { kind: 'declined' as const, reason };
}

/** The struct's member names when every member is a plain number (no pointer, array or nested struct); null otherwise. */
function numberMembers(record: SyntaxNode): string[] | null {
  const body =
    record.type === 'type_definition'
      ? record.namedChildren.find((child) => child?.type === 'struct_specifier')?.childForFieldName('body')
      : record.childForFieldName('body');
  if (!body) return null;
  const members: string[] = [];
  for (const field of body.namedChildren) {
    if (!field || field.type === 'comment') continue;
    if (field.type !== 'field_declaration') return null;
    const typeText = field.childForFieldName('type')?.text ?? '';
    if (!NUMBER_TYPE.test(typeText.trim())) return null;
    for (const declarator of field.childrenForFieldName('declarator')) {
      if (!declarator || declarator.type !== 'field_identifier') return null;
      members.push(declarator.text);
    }
  }
  return members.length > 0 ? members : null;
}

/**
 * Null when every use of `name` in the loop, as the compiler sees it (the translation unit, macros
 * expanded), adds to it member by member: `name.m += e`, `name.m++`, or
 * `name = (T){(name).m1 + e1, …}` over all members in order; else what the loop does instead.
 */
function memberWiseAdds(input: RuleInput, name: string, members: string[], type: string): string | null {
  if (input.site.lookup.kind !== 'loop') return input.site.lookup.reason;
  if (input.expanded === undefined)
    return "without the preprocessed code the loop's updates through macros cannot be read";
  const loop = input.site.lookup.loop;
  const rows = Array.from(
    { length: loop.endPosition.row - loop.startPosition.row + 1 },
    (_, offset) => loop.startPosition.row + offset,
  );
  let text = withoutComments(rows.map((row) => input.expanded!(row)).join('\n'));
  const self = `\\(?\\s*\\b${name}\\s*\\)?`;
  // One term of a statement or comma expression a macro wrote: it ends before `;` or `,`, past
  // the closing parentheses of the macro's own expression.
  const addend = `([^;,]+?)(?=\\)*\\s*(?:[;,]|$))`;
  const term = (member: string) => `${self}\\s*\\.\\s*${member}\\s*\\+\\s*([^,{}]+?)`;
  const whole = new RegExp(
    `${NOT_AFTER_ACCESS}\\b${name}\\s*=(?!=)\\s*\\(\\s*${type.replace(/\s+/g, '\\s+')}\\s*\\)\\s*\\{\\s*${members.map(term).join('\\s*,\\s*')}\\s*\\}`,
    'g',
  );
  const memberAdd = new RegExp(
    `${NOT_AFTER_ACCESS}${self}\\s*\\.\\s*(?:${members.join('|')})\\s*(?:\\+=(?!=)\\s*${addend}|\\+\\+)|(?:\\+\\+)\\s*${self}\\s*\\.\\s*(?:${members.join('|')})\\b`,
    'g',
  );
  // `(r).re = (r).re + (b).re`: a complex add macro written member by member.
  const memberAssignAdd = new RegExp(
    `${NOT_AFTER_ACCESS}${self}\\s*\\.\\s*(?<member>${members.join('|')})\\s*=(?!=)\\s*${self}\\s*\\.\\s*\\k<member>\\s*\\+\\s*${addend}`,
    'g',
  );
  for (const pattern of [whole, memberAssignAdd, memberAdd]) {
    text = text.replace(pattern, (update, ...groups: unknown[]) => {
      // The capture groups come before the match's offset (a number) and the whole text.
      const added = groups
        .slice(
          0,
          groups.findIndex((group) => typeof group === 'number'),
        )
        .filter((group): group is string => typeof group === 'string');
      return added.some((expression) => new RegExp(`\\b${name}\\b`).test(expression))
        ? update
        : ' '.repeat(update.length);
    });
  }
  return new RegExp(`${NOT_AFTER_ACCESS}\\b${name}\\b`).test(text)
    ? `the loop uses it other than by adding to each member (${type} has no '+', and a function or operator may combine it otherwise)`
    : null;
}
