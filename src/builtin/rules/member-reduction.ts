// A reduction over a struct or class member (`reduction(+:a.sum)`, `p->sum`, `this->total`):
// the loop reduces a local copy of the member (local-copy.ts).
import { replaceEntry } from './clauses.js';
import { copyEdits, loopOf, memberCopy, memberPattern, NOT_FOUND, onDirective, otherwiseOnlyRead, reductionEntries } from './local-copy.js';
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
