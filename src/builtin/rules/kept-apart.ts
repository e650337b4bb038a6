// One element updated in a loop that also reads other elements of the same array, at any rank:
// LU's `A[i][j] -= A[i][k] * A[k][j]` over `k < j`, inside `j < i`. The updated element does not
// change with the loop; each read differs from it at some position where the loop headers prove
// the two indices never equal (`k < j` directly; `k < j` and `j < i`, so `k < i`). A local copy of
// the updated element, stored back after the loop, then leaves every read reading what it read
// before. A section reduction would be wrong: it privatizes the whole array, reads included.
import type { SyntaxNode } from '../syntax.js';
import type { ElementUse } from './array-uses.js';
import type { RuleInput } from './rule.js';
import { loopVariablesOf, writtenIn } from './source-facts.js';

const NAME = /^[A-Za-z_]\w*$/;

/** `a < b` (strict) or `a <= b`, read from a loop header. */
interface Order {
  low: string;
  high: string;
  strict: boolean;
}

/**
 * The updated element and the pattern of `entry` that may stay in the loop (the reads), when the
 * loop updates one element it does not change and every other use is a read kept apart from it.
 */
export function readsKeptApart(
  input: RuleInput,
  loop: SyntaxNode,
  entry: string,
  uses: ElementUse[],
): { element: ElementUse; reads: string } | null {
  const updates = uses.filter((use) => use.update);
  const reads = uses.filter((use) => !use.update);
  const element = updates[0];
  if (element === undefined || reads.length === 0 || new Set(updates.map((use) => use.text)).size !== 1) return null;
  const rank = element.indices.length;
  if (uses.some((use) => use.indices.length !== rank)) return null;
  const own = loopVariablesOf(loop);
  const fixed = (name: string) => NAME.test(name) && !own.has(name) && writtenIn(input, loop, [name]) === null;
  if (!element.indices.every(fixed)) return null;
  const orders = ordersAround(input, loop);
  const apart = (read: ElementUse) =>
    read.indices.some((index, at) => NAME.test(index) && distinct(orders, index, element.indices[at]!));
  if (!reads.every(apart)) return null;
  const readForms = [
    ...new Set(reads.map((read) => read.indices.map((index) => `\\s*\\[\\s*${index}\\s*\\]`).join(''))),
  ];
  return { element, reads: `${entry}(?!${readForms.join('|')})` };
}

/**
 * What the headers of the loop and of the loops around it (up to the function) say about the
 * order of their variables: `k < j` from a condition, `i <= j` from `j = i` counted up. A header
 * counts only when its variable is assigned nowhere in its body but the update.
 */
function ordersAround(input: RuleInput, loop: SyntaxNode): Order[] {
  const orders: Order[] = [];
  for (let node: SyntaxNode | null = loop; node !== null && node.type !== 'function_definition'; node = node.parent) {
    if (node.type !== 'for_statement') continue;
    const variables = loopVariablesOf(node);
    if (variables.size !== 1) continue;
    const v = [...variables][0]!;
    const body = node.childForFieldName('body')?.text ?? '';
    if (assigns(body, v)) continue;
    // The loop's own bound must not change while the reduced loop runs.
    const steady = (name: string) => (node === loop ? writtenIn(input, loop, [name]) === null : !assigns(body, name));
    const condition = /^\s*([A-Za-z_]\w*)\s*(<=?|>=?)\s*([A-Za-z_]\w*)\s*$/.exec(
      node.childForFieldName('condition')?.text ?? '',
    );
    if (condition) {
      const [, left, op, right] = condition as unknown as [string, string, string, string];
      const [low, high] = op.startsWith('<') ? [left, right] : [right, left];
      if ((low === v || high === v) && steady(low === v ? high : low))
        orders.push({ low, high, strict: op.length === 1 });
    }
    const update = (node.childForFieldName('update')?.text ?? '').trim();
    const counted = new RegExp(`^(?:\\+\\+\\s*${v}|${v}\\s*\\+\\+|${v}\\s*\\+=\\s*[1-9]\\d*)$`).test(update);
    const start = new RegExp(`(?:^|[\\s,])${v}\\s*=\\s*([A-Za-z_]\\w*)(?:\\s*\\+\\s*([1-9]\\d*))?\\s*;?\\s*$`).exec(
      node.childForFieldName('initializer')?.text ?? '',
    );
    if (counted && start && steady(start[1]!)) orders.push({ low: start[1]!, high: v, strict: start[2] !== undefined });
  }
  return orders;
}

/** Whether the orders prove `a` and `b` never equal: a chain from one to the other with a strict step. */
function distinct(orders: Order[], a: string, b: string): boolean {
  return a !== b && (below(orders, a, b) || below(orders, b, a));
}

/** A chain `from` ≤ … ≤ `to` with at least one strict step. */
function below(orders: Order[], from: string, to: string): boolean {
  const seen = new Set<string>();
  const walk = (at: string, strict: boolean): boolean => {
    if (at === to) return strict;
    const key = `${at}:${strict}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return orders.some((order) => order.low === at && walk(order.high, strict || order.strict));
  };
  return walk(from, false);
}

function assigns(text: string, name: string): boolean {
  return new RegExp(
    `(?<![\\w.]|->)\\b${name}\\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)|\\b${name}\\s*(?:\\+\\+|--)|(?:\\+\\+|--)\\s*${name}\\b`,
  ).test(text);
}
