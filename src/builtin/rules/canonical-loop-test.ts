// A loop test with an offset on the iteration variable (`i + 1 < n`, `n > i + 1`, `i - 1 < n`):
// OpenMP wants the variable alone on one side. The offset moves to the bound: `i < n - 1`.
// Where the subtraction could wrap (an unsigned bound or variable) the bound is guarded,
// `i < (n > 1 ? n - 1 : 0)`, so a short range still runs no iteration. Other non-canonical
// loops (a multiplying step, a test on data, a floating-point variable) are handed on.
import { declarationsOf } from '../declarations.js';
import type { SyntaxNode } from '../syntax.js';
import { identifiersOf, writtenIn } from './source-facts.js';
import { addEdits, lineAt, type Rule, type RuleInput, unchanged } from './rule.js';

const PREDICATE_ERROR = /^invalid controlling predicate|^condition of OpenMP for loop must be a relational comparison/;
const SIGNED = /^(?:(?:signed|long|short|int|char)\s*)+$|^(?:std::)?(?:ptrdiff_t|ssize_t|int\d+_t|intptr_t)$/;
const FLIPPED: Record<string, string> = { '>': '<', '>=': '<=' };

export const canonicalLoopTest: Rule = {
  name: 'canonical-loop-test',
  apply(input) {
    const errors = input.errors.filter((message) => PREDICATE_ERROR.test(message.message));
    if (errors.length === 0 || input.site.lookup.kind !== 'loop') return unchanged(input);
    const loop = input.site.lookup.loop;
    const condition = loop.childForFieldName('condition');
    if (!condition || condition.startPosition.row !== condition.endPosition.row) return unchanged(input);
    const variable = iterationVariable(loop, input);
    if (variable === null || !increasing(loop.childForFieldName('update'), variable.name)) return unchanged(input);
    const test = offsetTest(condition.text, variable.name);
    if (test === null) return unchanged(input);
    if (
      test.offset !== '' &&
      !/^\d+[uUlL]*$/.test(test.offset) &&
      writtenIn(input, loop, identifiersOf(test.offset)) !== null
    )
      return unchanged(input);
    if (
      writtenIn(
        input,
        loop,
        identifiersOf(test.bound).filter((name) => name !== variable.name),
      ) !== null
    )
      return unchanged(input);
    const bound = /^[\w.]+(?:\(\))?$|^\w+(?:->\w+)+$/.test(test.bound) ? test.bound : `(${test.bound})`;
    const boundType = input.site.visible.get(test.bound)?.typeText ?? '';
    const knownSigned = (type: string) => SIGNED.test(type.trim());
    const signedOnly = knownSigned(variable.type) && (/^\d+$/.test(test.bound) || knownSigned(boundType));
    let rewritten: string;
    if (test.sign === '-') {
      // `i - c < n` → `i < n + c`: no subtraction, but with an unsigned `i` the original wraps below c.
      if (!signedOnly) return unchanged(input);
      rewritten = `${variable.name} ${test.operator} ${bound} + ${test.offset}`;
    } else if (signedOnly) {
      rewritten = `${variable.name} ${test.operator} ${bound} - ${test.offset}`;
    } else if (test.operator === '<') {
      rewritten = `${variable.name} < (${bound} > ${test.offset} ? ${bound} - ${test.offset} : 0)`;
    } else {
      rewritten = `${variable.name} < (${bound} >= ${test.offset} ? ${bound} - ${test.offset} + 1 : 0)`;
    }
    const row = condition.startPosition.row;
    const line = lineAt(input, row);
    const replaced =
      line.slice(0, condition.startPosition.column) + rewritten + line.slice(condition.endPosition.column);
    const edits = addEdits(input.state.edits, { replace: new Map([[row, replaced]]) });
    return { kind: 'result', state: { ...input.state, edits }, resolved: errors };
  },
};

function iterationVariable(loop: SyntaxNode, input: RuleInput): { name: string; type: string } | null {
  const init = loop.childForFieldName('initializer');
  if (!init) return null;
  if (init.type === 'declaration') {
    const [declaration] = declarationsOf(init, 'variable');
    return declaration && !declaration.isPointer ? { name: declaration.name, type: declaration.typeText } : null;
  }
  const match = /^\s*([A-Za-z_]\w*)\s*=[^=]/.exec(init.text);
  return match ? { name: match[1]!, type: input.site.visible.get(match[1]!)?.typeText ?? '' } : null;
}

/** `i++`, `++i`, `i += k` with a positive literal k, `i = i + k`. */
function increasing(update: SyntaxNode | null, name: string): boolean {
  if (!update) return false;
  const text = update.text.replace(/\s+/g, '');
  return (
    text === `${name}++` ||
    text === `++${name}` ||
    new RegExp(`^${name}\\+=\\d+$`).test(text) ||
    new RegExp(`^${name}=${name}\\+\\d+$`).test(text)
  );
}

interface OffsetTest {
  operator: '<' | '<=';
  sign: '+' | '-';
  offset: string;
  bound: string;
}

/** `i + c < n`, `c + i <= n`, `n > i + c`, `i - c < n`; null for any other form. */
function offsetTest(text: string, name: string): OffsetTest | null {
  const term = `[A-Za-z_]\\w*|\\d+[uUlL]*`;
  const left = new RegExp(`^(?:${name}\\s*([+-])\\s*(${term})|(${term})\\s*\\+\\s*${name})\\s*(<=|<)\\s*(.+)$`).exec(
    text.trim(),
  );
  if (left) {
    const offset = left[2] ?? left[3]!;
    if (offset === name) return null;
    return { operator: left[4] as '<' | '<=', sign: (left[1] ?? '+') as '+' | '-', offset, bound: left[5]!.trim() };
  }
  const right = new RegExp(`^(.+?)\\s*(>=|>)\\s*(?:${name}\\s*([+-])\\s*(${term})|(${term})\\s*\\+\\s*${name})$`).exec(
    text.trim(),
  );
  if (right) {
    const offset = right[4] ?? right[5]!;
    if (offset === name) return null;
    return {
      operator: FLIPPED[right[2]!] as '<' | '<=',
      sign: (right[3] ?? '+') as '+' | '-',
      offset,
      bound: right[1]!.trim(),
    };
  }
  return null;
}
