// How a loop uses an array it reduces: each use as an element with its indices, whether it is an
// update with the clause's operator, and the section over the extent the code states.
import type { SyntaxNode } from '../syntax.js';
import type { RuleInput } from './rule.js';
import { identifiersOf, loopVariablesOf, NOT_AFTER_ACCESS, writtenIn } from './source-facts.js';

export interface ElementUse {
  /** The element as written, spaces removed (`x[i][j]`). */
  text: string;
  indices: string[];
  /** Updated with the clause's operator: `x[j] += …`, `x[j]++`, `x[j] = x[j] + …`. */
  update: boolean;
}

/** Every use of `name` in the loop as an element, or why the loop uses it otherwise. */
export function elementUses(code: string, name: string, operator: string): ElementUse[] | string {
  // A commented-out debug print (`/* printf(… x[0] …) */`) is no use of the array.
  const text = withoutComments(code);
  const uses: ElementUse[] = [];
  const consumed = new Set<number>();
  const compound = operator === '+' || operator === '-' ? '[-+]=' : `${operator.replace(/[|^*&]/g, '\\$&')}=`;
  const binary = operator === '+' || operator === '-' ? '[-+]' : operator.replace(/[|^*&]/g, '\\$&');
  for (const occurrence of text.matchAll(new RegExp(`${NOT_AFTER_ACCESS}\\b${name}\\b`, 'g'))) {
    if (consumed.has(occurrence.index!)) continue;
    const element = subscripts(text.slice(occurrence.index! + name.length));
    if (element === null)
      return `'${name}' is a pointer with no known extent: the loop uses '${name}' other than as one element`;
    const written = `${name}${element.indices.map((index) => `[${index}]`).join('')}`;
    const after = text.slice(occurrence.index! + name.length + element.length);
    const before = text.slice(0, occurrence.index!);
    let update =
      new RegExp(`^\\s*${compound}(?!=)`).test(after) ||
      ((operator === '+' || operator === '-') && (/^\s*(\+\+|--)/.test(after) || /(\+\+|--)\s*$/.test(before)));
    const assigned = /^\s*=(?!=)\s*/.exec(after);
    if (!update && assigned) {
      // `x[j] = x[j] + …`: the read on the right is the same update.
      const rightAt = occurrence.index! + name.length + element.length + assigned[0].length;
      const right = text.slice(rightAt);
      const same = right.startsWith(name) ? subscripts(right.slice(name.length)) : null;
      if (
        same !== null &&
        same.indices.join() === element.indices.join() &&
        new RegExp(`^\\s*${binary}(?!=)`).test(right.slice(name.length + same.length))
      ) {
        update = true;
        consumed.add(rightAt);
      }
    }
    uses.push({ text: written, indices: element.indices, update });
  }
  if (uses.length === 0) return `'${name}' is not used in the loop`;
  return uses;
}

/** The text with every comment blanked, offsets kept. */
export function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, (comment) => comment.replace(/[^\n]/g, ' '));
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
export function sectionOf(
  input: RuleInput,
  loop: SyntaxNode,
  name: string,
  uses: ElementUse[],
): { section: string } | { reason: string } {
  const dimensions = new Set(uses.map((use) => use.indices.length));
  const declaration = input.site.visible.get(name)!;
  const declared = declaration.extents;
  if (
    dimensions.size === 1 &&
    declared !== undefined &&
    declared.length === [...dimensions][0] &&
    declared.every((extent) => extent !== '')
  ) {
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
  return {
    reason: `'${name}' is a pointer with no known extent: the loop updates elements that change with it (${uses[0]!.text}), and neither a declaration, an allocation in the function nor the loop's range states which`,
  };
}

/** `p = malloc(n * sizeof *p)`, `p = (double *)calloc(n, sizeof(double))` before the loop in the function: `n`. */
function allocatedExtent(input: RuleInput, loop: SyntaxNode, name: string): string | null {
  const rows = input.site.functionRows;
  if (rows === null) return null;
  const text = input.lines.slice(rows.first, loop.startPosition.row).join('\n');
  const allocations = [
    ...text.matchAll(
      new RegExp(`${NOT_AFTER_ACCESS}\\b${name}\\s*=\\s*(?:\\([^()]*\\)\\s*)?(malloc|calloc)\\s*\\(`, 'g'),
    ),
  ];
  const assignments = [...text.matchAll(new RegExp(`${NOT_AFTER_ACCESS}\\b${name}\\s*=(?!=)`, 'g'))];
  if (allocations.length !== 1 || assignments.length !== 1) return null;
  const call = allocations[0]!;
  const args = argumentsAt(text, call.index! + call[0].length);
  if (args === null) return null;
  const sizeOf = /^sizeof\s*(?:\([^()]*\)|\*?\s*\w+)$/;
  if (call[1] === 'calloc') return args.length === 2 && sizeOf.test(args[1]!) ? args[0]! : null;
  if (args.length !== 1) return null;
  const product =
    /^(.+?)\s*\*\s*(sizeof\s*(?:\([^()]*\)|\*?\s*\w+))$/.exec(args[0]!) ??
    /^(sizeof\s*(?:\([^()]*\)|\*?\s*\w+))\s*\*\s*(.+)$/.exec(args[0]!);
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
  const ranges = new Set(
    loops
      .filter((candidate) => loopVariablesOf(candidate).has(index))
      .map((owner) => ownRange(input, loop, owner, index)),
  );
  const [range] = ranges;
  return ranges.size === 1 && range !== undefined ? range : null;
}

function ownRange(input: RuleInput, loop: SyntaxNode, owner: SyntaxNode, index: string): string | null {
  const init = owner.childForFieldName('initializer')?.text ?? '';
  const test = owner.childForFieldName('condition')?.text ?? '';
  const step = owner.childForFieldName('update')?.text ?? '';
  const lower = new RegExp(`^(?:[\\w\\s]+\\s)?${index}\\s*=\\s*(.+?)\\s*;?$`).exec(init)?.[1];
  const upper = new RegExp(`^${index}\\s*(<=?)\\s*(.+)$`).exec(test);
  if (
    lower === undefined ||
    !upper ||
    !new RegExp(`^(?:${index}\\s*\\+\\+|\\+\\+\\s*${index}|${index}\\s*\\+=\\s*1)$`).test(step.trim())
  )
    return null;
  const bound = upper[1] === '<=' ? `${upper[2]} + 1` : upper[2]!;
  const invariant = (expression: string) =>
    writtenIn(
      input,
      loop,
      identifiersOf(expression).filter((id) => id !== index),
    ) === null && identifiersOf(expression).every((id) => id === index || !loopVariablesOf(loop).has(id));
  if (!invariant(lower) || !invariant(bound) || identifiersOf(`${lower} ${bound}`).includes(index)) return null;
  return lower === '0' ? `0:${bound}` : `${lower}:(${bound})-(${lower})`;
}
