// The local copy that carries a reduction over something that is not a variable: a struct or
// class member (`a.sum`, `p->sum`, `this->total`) or one element of an array reached through a
// pointer. OpenMP reduces variables, so the loop reduces a local copy: it is declared from the
// original right before the directive, replaces it inside the loop, and is assigned back right
// after the loop, all in the block that holds the loop. The rules that use it are
// member-reduction.ts, struct-reduction.ts and array-element-reduction.ts.
import type { Declaration } from '../declarations.js';
import type { SyntaxNode } from '../syntax.js';
import { addEdits, lineAt, type FileDiagnostic, type RuleInput, type SourceEdits } from './rule.js';
import { fieldOf, findRecord, freshName, NOT_AFTER_ACCESS } from './source-facts.js';

export const NOT_FOUND = /^user defined reduction not found for '([^']+)'/;

export interface Copy {
  /** The expression the loop reduced (`a.sum`, `this->total`, `hist[k]`). */
  original: string;
  /** What to replace inside the loop. */
  pattern: RegExp;
  type: string;
  local: string;
  /** An identifier that must not be left in the loop after the replacement (the copy would miss it). */
  base: string;
  /** The base as a pattern, when more than the identifier must not be left (`m.sum` of a struct). */
  basePattern?: string;
}

export function reductionEntries(input: RuleInput): { entry: string; operator: string }[] {
  return input.state.directive.clauses.flatMap((clause) =>
    clause.name === 'reduction' ? (clause.vars ?? []).map((entry) => ({ entry, operator: clause.modifier ?? '' })) : [],
  );
}

export function onDirective(input: RuleInput): FileDiagnostic[] {
  return input.errors.filter(
    (message) => message.line - 1 >= input.row && message.line - 1 < input.row + input.lineCount,
  );
}

/** The loop the copy is made around, or why there is none the copy could go around. */
export function loopOf(input: RuleInput): SyntaxNode | string {
  if (input.site.lookup.kind !== 'loop') return input.site.lookup.reason;
  const construct = input.state.directive.construct;
  // In `#pragma omp for` inside a parallel region a local declared next to the loop is private
  // to each thread, so it could not carry the reduction out.
  if (!/\bparallel\b/.test(construct) && construct.trim() !== 'simd') {
    return `'${construct}' runs inside an enclosing region, where a local copy next to the loop would be private to each thread`;
  }
  return input.site.lookup.loop;
}

/** `a.sum`, `p->s.x`, `this->total`: its type, the local's name, what to replace in the loop. */
export function memberCopy(input: RuleInput, entry: string): Copy | string {
  const parts = entry.split(/\s*(\.|->)\s*/);
  const base = parts[0]!;
  const members: string[] = [];
  for (let index = 2; index < parts.length; index += 2) members.push(parts[index]!);
  if (base === 'this') {
    const member = members.length === 1 ? input.site.visible.get(members[0]!) : undefined;
    if (!member || member.kind !== 'member') return `'${entry}': the member is not declared in a class this file shows`;
    const type = scalarType(input, member, entry);
    if (typeof type !== 'string') return type.reason;
    const name = members[0]!;
    return {
      original: entry,
      type,
      base: 'this',
      local: freshName(input, `${name}_local`),
      pattern: new RegExp(`\\bthis\\s*->\\s*${name}\\b|${NOT_AFTER_ACCESS}\\b${name}\\b(?!\\s*\\()`, 'g'),
    };
  }
  let declaration = input.site.visible.get(base);
  if (!declaration || declaration.kind === 'function')
    return `'${entry}': '${base}' is not a variable visible at the directive`;
  for (let index = 0; index < members.length; index++) {
    const through = parts[index * 2 + 1];
    if ((through === '->') !== declaration.isPointer || declaration.isArray)
      return `'${entry}': '${parts.slice(0, index * 2 + 1).join('')}' is not accessed as declared`;
    const field = fieldOf(input.types.root, declaration.typeName, members[index]!);
    if (!field)
      return `'${entry}': the type of '${parts.slice(0, index * 2 + 3).join('')}' is not defined in this file`;
    declaration = field;
  }
  const type = scalarType(input, declaration, entry);
  if (typeof type !== 'string') return type.reason;
  return {
    original: entry,
    type,
    base,
    local: freshName(input, [base, ...members].join('_')),
    pattern: new RegExp(`${NOT_AFTER_ACCESS}\\b${memberPattern(entry)}\\b`, 'g'),
  };
}

/** `a.b->c` as a pattern that allows spaces around the accesses. */
export function memberPattern(entry: string): string {
  return entry
    .split(/\s*(\.|->)\s*/)
    .map((part) => (part === '.' ? '\\s*\\.\\s*' : part === '->' ? '\\s*->\\s*' : part))
    .join('');
}

/** Every use of `base` left in the loop reads one of its members: no assignment, increment, address or use as a whole. */
export function otherwiseOnlyRead(text: string, base: string): boolean {
  return [...text.matchAll(new RegExp(`${NOT_AFTER_ACCESS}\\b${base}\\b`, 'g'))].every((use) => {
    const rest = text.slice(use.index! + base.length);
    const access = /^\s*(?:\.|->)\s*[A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*)*/.exec(rest);
    if (!access) return false;
    const after = rest.slice(access[0].length);
    const before = text.slice(0, use.index!);
    return !/^\s*(?:(?:[-+*/%&|^]|<<|>>)?=(?!=)|\+\+|--|\[|\()/.test(after) && !/(?:\+\+|--|&)\s*$/.test(before);
  });
}

/** The declared type when it is a plain arithmetic (or typedef'd) value, not a class, pointer or array. */
export function scalarType(input: RuleInput, declaration: Declaration, entry: string): string | { reason: string } {
  if (declaration.isPointer || declaration.isArray || declaration.isReference)
    return {
      reason: `'${entry}' is a pointer, array or reference member; a local copy would not reduce what it refers to`,
    };
  if (declaration.typeName !== null && findRecord(input.types.root, declaration.typeName))
    return { reason: `'${entry}' has class type '${declaration.typeText}'` };
  if (declaration.typeText === '' || /\bauto\b/.test(declaration.typeText))
    return { reason: `'${entry}': its type is not written out` };
  return declaration.typeText.replace(/\b(const|volatile|mutable|static)\s+/g, '');
}

/** Where the copy goes and what changes in the loop; a string says why it cannot be done. */
export function copyEdits(input: RuleInput, loop: SyntaxNode, copy: Copy): SourceEdits | string {
  if (loop.parent?.type !== 'compound_statement') {
    return `the loop at line ${loop.startPosition.row + 1} is not directly inside a block, so a local copy of '${copy.original}' has nowhere to go`;
  }
  const first = loop.startPosition.row;
  const last = loop.endPosition.row;
  const tail = lineAt(input, last).slice(loop.endPosition.column);
  if (tail.trim() !== '' && !/^\s*\/\//.test(tail))
    return `the loop ends on line ${last + 1} next to other code; the copy could not be assigned back after it`;
  const replace = new Map<number, string>();
  for (let row = first; row <= last; row++) {
    const line = lineAt(input, row);
    const replaced = line.replace(copy.pattern, copy.local);
    if (replaced !== line) replace.set(row, replaced);
  }
  if (replace.size === 0) return `'${copy.original}' is not updated in the loop at line ${first + 1}`;
  const loopText = Array.from(
    { length: last - first + 1 },
    (_, offset) => replace.get(first + offset) ?? lineAt(input, first + offset),
  ).join('\n');
  if (new RegExp(`${NOT_AFTER_ACCESS}\\b${copy.basePattern ?? copy.base}\\b`).test(loopText)) {
    return `'${copy.base}' is used in the loop other than as '${copy.original}'; a local copy of '${copy.original}' would change what the loop computes`;
  }
  const indent = /^\s*/.exec(lineAt(input, first))![0];
  // Directly above the directive: where the directive ends up standing above the loop.
  const copyRow =
    input.site.lookup.kind === 'loop' && input.site.lookup.path.length === 0 ? input.state.aboveRow : first;
  return addEdits(input.state.edits, {
    replace,
    before: new Map([[copyRow, [`${indent}${copy.type} ${copy.local} = ${copy.original};`]]]),
    after: new Map([[last, [`${indent}${copy.original} = ${copy.local};`]]]),
  });
}
