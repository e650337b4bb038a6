// A reduction over a struct or class member (`reduction(+:a.sum)`, `p->sum`, `this->total`):
// the loop reduces a local copy of the member (local-copy.ts).
import { replaceEntry } from './clauses.js';
import {
  copyEdits,
  loopOf,
  memberCopy,
  memberPattern,
  NOT_FOUND,
  onDirective,
  otherwiseOnlyRead,
  reductionEntries,
  type Copy,
} from './local-copy.js';
import { type Rule, unchanged } from './rule.js';

const MEMBER_ACCESS = /^[A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*)+$/;
/** gcc stops at the `.`/`->` and then finds no reduction for the base; clang wants a variable name. */
const MEMBER_ERRORS = /^expected '\)' before '(?:\.|->)' token|^expected variable name|^'this' allowed in OpenMP only/;

export const memberReduction: Rule = {
  name: 'reduce-member-copy',
  apply(input) {
    const entries = reductionEntries(input).filter(({ entry }) => MEMBER_ACCESS.test(entry));
    if (entries.length === 0) return unchanged(input);
    const loop = loopOf(input);
    if (typeof loop === 'string') return { kind: 'declined', reason: loop };
    let state = input.state;
    const bases = new Set<string>();
    const copies: Copy[] = [];
    for (const { entry } of entries) {
      const copy = memberCopy(input, entry);
      if (typeof copy === 'string') return { kind: 'declined', reason: copy };
      copies.push(copy);
    }
    for (const copy of copies) {
      // Every reduced member of the same object gets its own copy (`m.sum`, `m.sumsq`, `m.count`
      // in one loop), so the object is judged with all of them replaced. When it is otherwise
      // only read (`m.scale` next to `m.sum += …`) the other members stay in the shared object,
      // and only the reduced members' spellings must be gone.
      const siblings = copies.filter((other) => other.base === copy.base);
      const rest = siblings.reduce((text, other) => text.replace(other.pattern, other.local), loop.text);
      const readOnly = copy.base !== 'this' && otherwiseOnlyRead(rest, copy.base);
      const entry = copy.original;
      const edits = copyEdits(
        { ...input, state },
        loop,
        readOnly ? { ...copy, basePattern: memberPattern(entry) } : copy,
      );
      if (typeof edits === 'string') return { kind: 'declined', reason: edits };
      state = { ...state, directive: replaceEntry(state.directive, 'reduction', entry, copy.local), edits };
      bases.add(copy.base);
    }
    const resolved = onDirective(input).filter(
      (message) => MEMBER_ERRORS.test(message.message) || bases.has(NOT_FOUND.exec(message.message)?.[1] ?? ''),
    );
    return { kind: 'result', state, resolved };
  },
};
