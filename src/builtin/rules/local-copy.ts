// Reductions over something that is not a variable: a struct or class member (`a.sum`,
// `p->sum`, `this->total`) or one element of an array reached through a pointer (`hist` when the
// loop only touches `hist[k]`). OpenMP reduces variables, so the loop reduces a local copy: it is
// declared from the original right before the directive, replaces it inside the loop, and is
// assigned back right after the loop, all in the block that holds the loop. An element with a
// constant index needs no copy: it becomes the array section `hist[c:1]`.
import type { Directive } from '../../patch/openmp.js';
import type { Declaration } from '../declarations.js';
import { declarationsOf } from '../declarations.js';
import type { SyntaxNode } from '../syntax.js';
import { replaceEntry } from './clauses.js';
import { addEdits, lineAt, reductionEntryAt, type FileDiagnostic, type Rule, type RuleInput, type SourceEdits, unchanged } from './rule.js';

const MEMBER_ACCESS = /^[A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*)+$/;
const NOT_AFTER_ACCESS = '(?<![\\w.]|->|::)';
/** gcc stops at the `.`/`->` and then finds no reduction for the base; clang wants a variable name. */
const MEMBER_ERRORS = /^expected '\)' before '(?:\.|->)' token|^expected variable name|^'this' allowed in OpenMP only/;
const NOT_FOUND = /^user defined reduction not found for '([^']+)'/;
/** clang, for a struct it cannot combine: no operator, or no default initialization value. */
const CLANG_NO_COMBINER = /^list item of type '[^']*' is not valid for specified reduction operation|^invalid operands to binary expression \('[^'*]*' and '[^'*]*'\)/;
/** clang's word for a pointer in a reduction: `invalid operands to binary expression ('int *' and 'int *')`, `('double (*)[10]' and …)` for a 2-D array parameter. */
const CLANG_POINTER = /^invalid operands to binary expression \('[^']*(?:\*|\(\*\)(?:\[[^'\]]*\])+)' and '[^']*(?:\*|\(\*\)(?:\[[^'\]]*\])+)'\)/;

interface Copy {
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

export const memberReduction: Rule = {
  name: 'reduce-member-copy',
  apply(input) {
    const entries = reductionEntries(input).filter(({ entry }) => MEMBER_ACCESS.test(entry));
    if (entries.length === 0) return unchanged(input);
    const loop = loopOf(input);
    if (typeof loop === 'string') return { kind: 'declined', reason: loop };
    let state = input.state;
    const bases = new Set<string>();
    for (const { entry } of entries) {
      const copy = memberCopy(input, entry);
      if (typeof copy === 'string') return { kind: 'declined', reason: copy };
      // The struct otherwise only read in the loop (`m.count` next to `m.sum += …`): its other
      // members stay in the shared object, so only the reduced member's spelling must be gone.
      const readOnly = copy.base !== 'this' && otherwiseOnlyRead(loop.text.replace(copy.pattern, copy.local), copy.base);
      const edits = copyEdits({ ...input, state }, loop, readOnly ? { ...copy, basePattern: memberPattern(entry) } : copy);
      if (typeof edits === 'string') return { kind: 'declined', reason: edits };
      state = { ...state, directive: replaceEntry(state.directive, 'reduction', entry, copy.local), edits };
      bases.add(copy.base);
    }
    const resolved = onDirective(input).filter((message) =>
      MEMBER_ERRORS.test(message.message) || bases.has(NOT_FOUND.exec(message.message)?.[1] ?? ''));
    return { kind: 'result', state, resolved };
  },
};

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
      return declaration !== undefined && declaration.kind !== 'function' && !declaration.isPointer && !declaration.isArray
        && declaration.typeName !== null && findRecord(input.types.root, declaration.typeName) !== null;
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
        const edits = copyEdits({ ...input, state }, loop, { ...copy, base: `${entry}.${member}`, basePattern: `${entry}\\s*\\.\\s*${member}` });
        if (typeof edits === 'string') return { kind: 'declined', reason: edits };
        state = { ...state, edits };
        locals.push(copy.local);
      }
      state = { ...state, directive: replaceEntries(state.directive, entry, locals) };
      fixed.add(entry);
    }
    const resolved = onDirective(input).filter((message) => fixed.has(NOT_FOUND.exec(message.message)?.[1] ?? '')
      || ((CLANG_NO_COMBINER.test(message.message)) && fixed.has(reductionEntryAt(input.lines, message) ?? '')));
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
    const increment = (operator === '+' || operator === '-') && (/^\s*(\+\+|--)/.test(after) || /(\+\+|--)\s*$/.test(before));
    if (new RegExp(`^\\s*${compound}(?!=)`).test(after) || increment) counts.updated++;
    else if (/^\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)|^\s*(\+\+|--)|(\+\+|--)\s*$/.test(after) || /(\+\+|--)\s*$/.test(before)) return `'${name}.${access[1]}' is assigned in the loop other than by '${operator}'; reducing it would change what the loop computes`;
    else counts.other++;
    members.set(access[1]!, counts);
  }
  const mixed = [...members].find(([, counts]) => counts.updated > 0 && counts.other > 0);
  if (mixed) return `'${name}.${mixed[0]}' is both read and updated in the loop; a reduction would hide the partial sums it reads`;
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
      return declaration !== undefined && declaration.kind !== 'function'
        && (declaration.isPointer || (declaration.isArray && declaration.kind === 'parameter'))
        && (declaration.typeName === null || findRecord(input.types.root, declaration.typeName) === null);
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
      const varying = uses.flatMap((use) => use.indices).flatMap(identifiersOf).find((id) => loopVariablesOf(loop).has(id) || writtenIn(input, loop, [id]) !== null);
      const single = elements.size === 1 && varying === undefined ? { element: uses[0]!, reads: undefined } : besideReadsKeptApart(input, loop, entry, uses);
      if (single !== null) {
        const { element } = single;
        if (element.indices.length === 1 && /^\d+[uUlL]*$/.test(element.indices[0]!)) {
          state = { ...state, directive: replaceEntry(state.directive, 'reduction', entry, `${entry}[${element.indices[0]}:1]`) };
        } else {
          const declaration = input.site.visible.get(entry)!;
          const copy: Copy = {
            original: element.text, type: declaration.typeText, base: entry,
            local: freshName(input, `${entry}_${element.indices.flatMap(identifiersOf).join('_')}`),
            pattern: new RegExp(`${NOT_AFTER_ACCESS}\\b${entry}${element.indices.map((index) => `\\s*\\[\\s*${spaced(index)}\\s*\\]`).join('')}`, 'g'),
            ...(single.reads !== undefined && { basePattern: single.reads }),
          };
          const edits = copyEdits({ ...input, state }, loop, copy);
          if (typeof edits === 'string') return { kind: 'declined', reason: edits };
          state = { ...state, directive: replaceEntry(state.directive, 'reduction', entry, copy.local), edits };
        }
      } else {
        const other = uses.find((use) => !use.update);
        if (other !== undefined) {
          return { kind: 'declined', reason: `'${entry}' is updated at elements that change in the loop and also used at '${other.text}' other than by '${operator}': a section reduction privatizes all of '${entry}', so that use would see the private copy` };
        }
        const section = sectionOf(input, loop, entry, uses);
        if ('reason' in section) return { kind: 'declined', reason: section.reason };
        state = { ...state, directive: replaceEntry(state.directive, 'reduction', entry, section.section) };
      }
      fixed.add(entry);
    }
    const resolved = onDirective(input).filter((message) =>
      fixed.has(NOT_FOUND.exec(message.message)?.[1] ?? '') || (CLANG_POINTER.test(message.message) && fixed.has(reductionEntryAt(input.lines, message) ?? '')));
    return { kind: 'result', state, resolved };
  },
};

/**
 * `x[i] -= L[i][j] * x[j]` in a `j < i` loop (a triangular solve): every update is to one element
 * that stays the same through the loop, and every other use reads an element that the loop's own
 * condition keeps apart from it. A local copy of the updated element then leaves those reads
 * reading what they read before; `reads` is the pattern of `entry` that may stay in the loop.
 */
function besideReadsKeptApart(input: RuleInput, loop: SyntaxNode, entry: string, uses: ElementUse[]): { element: ElementUse; reads: string } | null {
  const updates = uses.filter((use) => use.update);
  const reads = uses.filter((use) => !use.update);
  const element = updates[0];
  if (element === undefined || reads.length === 0 || new Set(updates.map((use) => use.text)).size !== 1 || uses.some((use) => use.indices.length !== 1)) return null;
  const fixed = element.indices[0]!;
  if (!/^[A-Za-z_]\w*$/.test(fixed) || loopVariablesOf(loop).has(fixed) || writtenIn(input, loop, [fixed]) !== null) return null;
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
  const condition = /^\s*([A-Za-z_]\w*)\s*[<>]\s*([A-Za-z_]\w*)\s*$/.exec(loop.childForFieldName('condition')?.text ?? '');
  const start = /([A-Za-z_]\w*)\s*=\s*([A-Za-z_]\w*)\s*\+\s*[1-9]\d*\s*;?\s*$/.exec(loop.childForFieldName('initializer')?.text ?? '');
  const update = loop.childForFieldName('update')?.text ?? '';
  const variable =
    condition?.[1] === index ? condition[2]! :
    condition?.[2] === index ? condition[1]! :
    start?.[2] === index && new RegExp(`^\\s*(?:\\+\\+\\s*${start[1]}|${start[1]}\\s*\\+\\+|${start[1]}\\s*\\+=\\s*[1-9]\\d*)\\s*$`).test(update) ? start[1]! : null;
  if (variable === null || !variables.has(variable)) return null;
  const body = loop.childForFieldName('body')?.text ?? '';
  const assigned = new RegExp(`\\b${variable}\\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)|\\b${variable}\\s*(?:\\+\\+|--)|(?:\\+\\+|--)\\s*${variable}\\b`);
  return assigned.test(body) ? null : variable;
}

interface ElementUse {
  /** The element as written, spaces removed (`x[i][j]`). */
  text: string;
  indices: string[];
  /** Updated with the clause's operator: `x[j] += …`, `x[j]++`, `x[j] = x[j] + …`. */
  update: boolean;
}

/** Every use of `name` in the loop as an element, or why the loop uses it otherwise. */
function elementUses(text: string, name: string, operator: string): ElementUse[] | string {
  const uses: ElementUse[] = [];
  const consumed = new Set<number>();
  const compound = operator === '+' || operator === '-' ? '[-+]=' : `${operator.replace(/[|^*&]/g, '\\$&')}=`;
  const binary = operator === '+' || operator === '-' ? '[-+]' : operator.replace(/[|^*&]/g, '\\$&');
  for (const occurrence of text.matchAll(new RegExp(`${NOT_AFTER_ACCESS}\\b${name}\\b`, 'g'))) {
    if (consumed.has(occurrence.index!)) continue;
    const element = subscripts(text.slice(occurrence.index! + name.length));
    if (element === null) return `'${name}' is a pointer with no known extent: the loop uses '${name}' other than as one element`;
    const written = `${name}${element.indices.map((index) => `[${index}]`).join('')}`;
    const after = text.slice(occurrence.index! + name.length + element.length);
    const before = text.slice(0, occurrence.index!);
    let update = new RegExp(`^\\s*${compound}(?!=)`).test(after)
      || ((operator === '+' || operator === '-') && (/^\s*(\+\+|--)/.test(after) || /(\+\+|--)\s*$/.test(before)));
    const assigned = /^\s*=(?!=)\s*/.exec(after);
    if (!update && assigned) {
      // `x[j] = x[j] + …`: the read on the right is the same update.
      const rightAt = occurrence.index! + name.length + element.length + assigned[0].length;
      const right = text.slice(rightAt);
      const same = right.startsWith(name) ? subscripts(right.slice(name.length)) : null;
      if (same !== null && same.indices.join() === element.indices.join() && new RegExp(`^\\s*${binary}(?!=)`).test(right.slice(name.length + same.length))) {
        update = true;
        consumed.add(rightAt);
      }
    }
    uses.push({ text: written, indices: element.indices, update });
  }
  if (uses.length === 0) return `'${name}' is not used in the loop`;
  return uses;
}

/** The `[…]` groups at the start of `text`, indices without spaces, and how much text they take. */
function subscripts(text: string): { indices: string[]; length: number } | null {
  const indices: string[] = [];
  let at = 0;
  for (let open = /^\s*\[/.exec(text); open; open = /^\s*\[/.exec(text.slice(at))) {
    const start = at + open[0].length;
    let depth = 1;
    let end = start;
    while (end < text.length && depth > 0) {
      if (text[end] === '[') depth++;
      else if (text[end] === ']') depth--;
      end++;
    }
    if (depth > 0) return null;
    indices.push(text.slice(start, end - 1).replace(/\s+/g, ''));
    at = end;
  }
  return indices.length > 0 ? { indices, length: at } : null;
}

/**
 * The array section over the extent the code states for `name`: the array parameter's declared
 * extents, a `malloc`/`calloc` of it in the function, or the range of the loop whose variable
 * is each index. Why not, when none is stated.
 */
function sectionOf(input: RuleInput, loop: SyntaxNode, name: string, uses: ElementUse[]): { section: string } | { reason: string } {
  const dimensions = new Set(uses.map((use) => use.indices.length));
  const declaration = input.site.visible.get(name)!;
  const declared = declaration.extents;
  if (dimensions.size === 1 && declared !== undefined && declared.length === [...dimensions][0] && declared.every((extent) => extent !== '')) {
    return { section: `${name}${declared.map((extent) => `[0:${extent}]`).join('')}` };
  }
  if (dimensions.size === 1 && [...dimensions][0] === 1) {
    const allocated = allocatedExtent(input, loop, name);
    if (allocated !== null) return { section: `${name}[0:${allocated}]` };
  }
  const ranges = uses[0]!.indices.map((index) => loopRange(input, loop, index));
  if (ranges.every((range) => range !== null) && uses.every((use) => use.indices.join() === uses[0]!.indices.join())) {
    return { section: `${name}${ranges.map((range) => `[${range}]`).join('')}` };
  }
  return { reason: `'${name}' is a pointer with no known extent: the loop updates elements that change with it (${uses[0]!.text}), and neither a declaration, an allocation in the function nor the loop's range states which` };
}

/** `p = malloc(n * sizeof *p)`, `p = (double *)calloc(n, sizeof(double))` before the loop in the function: `n`. */
function allocatedExtent(input: RuleInput, loop: SyntaxNode, name: string): string | null {
  const rows = input.site.functionRows;
  if (rows === null) return null;
  const text = input.lines.slice(rows.first, loop.startPosition.row).join('\n');
  const allocations = [...text.matchAll(new RegExp(`${NOT_AFTER_ACCESS}\\b${name}\\s*=\\s*(?:\\([^()]*\\)\\s*)?(malloc|calloc)\\s*\\(`, 'g'))];
  const assignments = [...text.matchAll(new RegExp(`${NOT_AFTER_ACCESS}\\b${name}\\s*=(?!=)`, 'g'))];
  if (allocations.length !== 1 || assignments.length !== 1) return null;
  const call = allocations[0]!;
  const args = argumentsAt(text, call.index! + call[0].length);
  if (args === null) return null;
  const sizeOf = /^sizeof\s*(?:\([^()]*\)|\*?\s*\w+)$/;
  if (call[1] === 'calloc') return args.length === 2 && sizeOf.test(args[1]!) ? args[0]! : null;
  if (args.length !== 1) return null;
  const product = /^(.+?)\s*\*\s*(sizeof\s*(?:\([^()]*\)|\*?\s*\w+))$/.exec(args[0]!) ?? /^(sizeof\s*(?:\([^()]*\)|\*?\s*\w+))\s*\*\s*(.+)$/.exec(args[0]!);
  if (!product) return null;
  const count = sizeOf.test(product[1]!) ? product[2]! : product[1]!;
  return /^[\w\s()+\-*]+$/.test(count) ? `(${count})`.replace(/^\((\w+)\)$/, '$1') : null;
}

/** The top-level comma-separated arguments of the call whose `(` precedes `from`. */
function argumentsAt(text: string, from: number): string[] | null {
  const args: string[] = [];
  let depth = 0;
  let start = from;
  for (let index = from; index < text.length; index++) {
    const char = text[index];
    if (char === '(') depth++;
    else if (char === ')' && depth-- === 0) {
      args.push(text.slice(start, index).trim());
      return args;
    } else if (char === ',' && depth === 0) {
      args.push(text.slice(start, index).trim());
      start = index + 1;
    }
  }
  return null;
}

/**
 * `lo:length` of the elements index `index` reaches: one element when the loop does not change
 * it, else the range of the loops (the parallel one or ones inside it) whose variable it is
 * exactly, when they agree, step by one and their bounds do not change in the parallel loop; null otherwise.
 */
function loopRange(input: RuleInput, loop: SyntaxNode, index: string): string | null {
  if (!/^[A-Za-z_]\w*$/.test(index)) return null;
  const varies = loopVariablesOf(loop).has(index) || writtenIn(input, loop, [index]) !== null;
  if (!varies) return `${index}:1`;
  const loops: SyntaxNode[] = [];
  const visit = (node: SyntaxNode) => {
    if (node.type === 'for_statement') loops.push(node);
    for (const child of node.namedChildren) if (child) visit(child);
  };
  visit(loop);
  const ranges = new Set(loops.filter((candidate) => loopVariablesOf(candidate).has(index)).map((owner) => ownRange(input, loop, owner, index)));
  const [range] = ranges;
  return ranges.size === 1 && range !== undefined ? range : null;
}

function ownRange(input: RuleInput, loop: SyntaxNode, owner: SyntaxNode, index: string): string | null {
  const init = owner.childForFieldName('initializer')?.text ?? '';
  const test = owner.childForFieldName('condition')?.text ?? '';
  const step = owner.childForFieldName('update')?.text ?? '';
  const lower = new RegExp(`^(?:[\\w\\s]+\\s)?${index}\\s*=\\s*(.+?)\\s*;?$`).exec(init)?.[1];
  const upper = new RegExp(`^${index}\\s*(<=?)\\s*(.+)$`).exec(test);
  if (lower === undefined || !upper || !new RegExp(`^(?:${index}\\s*\\+\\+|\\+\\+\\s*${index}|${index}\\s*\\+=\\s*1)$`).test(step.trim())) return null;
  const bound = upper[1] === '<=' ? `${upper[2]} + 1` : upper[2]!;
  const invariant = (expression: string) => writtenIn(input, loop, identifiersOf(expression).filter((id) => id !== index)) === null
    && identifiersOf(expression).every((id) => id === index || !loopVariablesOf(loop).has(id));
  if (!invariant(lower) || !invariant(bound) || identifiersOf(`${lower} ${bound}`).includes(index)) return null;
  return lower === '0' ? `0:${bound}` : `${lower}:(${bound})-(${lower})`;
}

function reductionEntries(input: RuleInput): { entry: string; operator: string }[] {
  return input.state.directive.clauses.flatMap((clause) =>
    clause.name === 'reduction' ? (clause.vars ?? []).map((entry) => ({ entry, operator: clause.modifier ?? '' })) : []);
}

function onDirective(input: RuleInput): FileDiagnostic[] {
  return input.errors.filter((message) => message.line - 1 >= input.row && message.line - 1 < input.row + input.lineCount);
}

/** The loop the copy is made around, or why there is none the copy could go around. */
function loopOf(input: RuleInput): SyntaxNode | string {
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
function memberCopy(input: RuleInput, entry: string): Copy | string {
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
      original: entry, type, base: 'this', local: freshName(input, `${name}_local`),
      pattern: new RegExp(`\\bthis\\s*->\\s*${name}\\b|${NOT_AFTER_ACCESS}\\b${name}\\b(?!\\s*\\()`, 'g'),
    };
  }
  let declaration = input.site.visible.get(base);
  if (!declaration || declaration.kind === 'function') return `'${entry}': '${base}' is not a variable visible at the directive`;
  for (let index = 0; index < members.length; index++) {
    const through = parts[index * 2 + 1];
    if ((through === '->') !== declaration.isPointer || declaration.isArray) return `'${entry}': '${parts.slice(0, index * 2 + 1).join('')}' is not accessed as declared`;
    const field = fieldOf(input.types.root, declaration.typeName, members[index]!);
    if (!field) return `'${entry}': the type of '${parts.slice(0, index * 2 + 3).join('')}' is not defined in this file`;
    declaration = field;
  }
  const type = scalarType(input, declaration, entry);
  if (typeof type !== 'string') return type.reason;
  return {
    original: entry, type, base, local: freshName(input, [base, ...members].join('_')),
    pattern: new RegExp(`${NOT_AFTER_ACCESS}\\b${memberPattern(entry)}\\b`, 'g'),
  };
}

/** `a.b->c` as a pattern that allows spaces around the accesses. */
function memberPattern(entry: string): string {
  return entry.split(/\s*(\.|->)\s*/).map((part) => (part === '.' ? '\\s*\\.\\s*' : part === '->' ? '\\s*->\\s*' : part)).join('');
}

/** Every use of `base` left in the loop reads one of its members: no assignment, increment, address or use as a whole. */
function otherwiseOnlyRead(text: string, base: string): boolean {
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
function scalarType(input: RuleInput, declaration: Declaration, entry: string): string | { reason: string } {
  if (declaration.isPointer || declaration.isArray || declaration.isReference) return { reason: `'${entry}' is a pointer, array or reference member; a local copy would not reduce what it refers to` };
  if (declaration.typeName !== null && findRecord(input.types.root, declaration.typeName)) return { reason: `'${entry}' has class type '${declaration.typeText}'` };
  if (declaration.typeText === '' || /\bauto\b/.test(declaration.typeText)) return { reason: `'${entry}': its type is not written out` };
  return declaration.typeText.replace(/\b(const|volatile|mutable|static)\s+/g, '');
}

/** Where the copy goes and what changes in the loop; a string says why it cannot be done. */
function copyEdits(input: RuleInput, loop: SyntaxNode, copy: Copy): SourceEdits | string {
  if (loop.parent?.type !== 'compound_statement') {
    return `the loop at line ${loop.startPosition.row + 1} is not directly inside a block, so a local copy of '${copy.original}' has nowhere to go`;
  }
  const first = loop.startPosition.row;
  const last = loop.endPosition.row;
  const tail = lineAt(input, last).slice(loop.endPosition.column);
  if (tail.trim() !== '' && !/^\s*\/\//.test(tail)) return `the loop ends on line ${last + 1} next to other code; the copy could not be assigned back after it`;
  const replace = new Map<number, string>();
  for (let row = first; row <= last; row++) {
    const line = lineAt(input, row);
    const replaced = line.replace(copy.pattern, copy.local);
    if (replaced !== line) replace.set(row, replaced);
  }
  if (replace.size === 0) return `'${copy.original}' is not updated in the loop at line ${first + 1}`;
  const loopText = Array.from({ length: last - first + 1 }, (_, offset) => replace.get(first + offset) ?? lineAt(input, first + offset)).join('\n');
  if (new RegExp(`${NOT_AFTER_ACCESS}\\b${copy.basePattern ?? copy.base}\\b`).test(loopText)) {
    return `'${copy.base}' is used in the loop other than as '${copy.original}'; a local copy of '${copy.original}' would change what the loop computes`;
  }
  const indent = /^\s*/.exec(lineAt(input, first))![0];
  // Directly above the directive: where the directive ends up standing above the loop.
  const copyRow = input.site.lookup.kind === 'loop' && input.site.lookup.path.length === 0 ? input.state.aboveRow : first;
  return addEdits(input.state.edits, {
    replace,
    before: new Map([[copyRow, [`${indent}${copy.type} ${copy.local} = ${copy.original};`]]]),
    after: new Map([[last, [`${indent}${copy.original} = ${copy.local};`]]]),
  });
}

function loopVariablesOf(loop: SyntaxNode): Set<string> {
  const init = loop.childForFieldName('initializer');
  if (!init) return new Set();
  if (init.type === 'declaration') return new Set(declarationsOf(init, 'variable').map((declaration) => declaration.name));
  return new Set(identifiersOf(init.text.split('=')[0] ?? ''));
}

export function identifiersOf(expression: string): string[] {
  return [...expression.matchAll(/[A-Za-z_]\w*/g)].map((match) => match[0]);
}

/** The first of `names` the loop assigns, increments or decrements, or null. */
export function writtenIn(input: RuleInput, loop: SyntaxNode, names: string[]): string | null {
  const text = loop.text;
  return names.find((name) => new RegExp(`${NOT_AFTER_ACCESS}\\b${name}\\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)|\\b${name}\\s*(?:\\+\\+|--)|(?:\\+\\+|--)\\s*${name}\\b`).test(text)
    || input.site.declaredInside.has(name)) ?? null;
}

/** `base`, or `base_`, `base__`… whichever the file does not use yet. */
export function freshName(input: RuleInput, base: string): string {
  const source = input.lines.join('\n');
  let name = base;
  while (new RegExp(`\\b${name}\\b`).test(source)) name += '_';
  return name;
}

function spaced(index: string): string {
  return index.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').split('').join('\\s*');
}

/** The struct, class or union `name` with a body, or a typedef of an unnamed one. */
export function findRecord(node: SyntaxNode, name: string): SyntaxNode | null {
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (/^(class|struct|union)_specifier$/.test(child.type) && child.childForFieldName('name')?.text === name && child.childForFieldName('body')) return child;
    if (child.type === 'type_definition' && child.childrenForFieldName('declarator').some((d) => d?.text === name)) {
      const record = child.childForFieldName('type');
      if (record?.childForFieldName('body')) return record;
    }
    if (child.type === 'function_definition') continue;
    const inner = findRecord(child, name);
    if (inner) return inner;
  }
  return null;
}

function fieldOf(root: SyntaxNode, typeName: string | null, member: string): Declaration | null {
  const record = typeName === null ? null : findRecord(root, typeName);
  const body = record?.childForFieldName('body');
  if (!body) return null;
  for (const field of body.namedChildren) {
    if (field?.type !== 'field_declaration') continue;
    const found = declarationsOf(field, 'member').find((declaration) => declaration.name === member);
    if (found) return found;
  }
  return null;
}

