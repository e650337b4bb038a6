// Clause names that do not exist at the directive: locals of the loop body, indices declared in
// the for-init, IR names (`i10`, `in.addr`, `tmp_var37`), mangled globals, bare member names.
// They are dropped from every clause: a body local is private anyway, and a name that is not a
// variable here cannot be meant as one.
import type { Clause } from '../../patch/openmp.js';
import { isDataSharing, leadingIdentifier, removeEntries } from './clauses.js';
import { errorsNaming, NOT_A_LIST_ITEM, type Rule, type RuleInput } from './rule.js';

const NOT_DECLARED = [
  /^'([^']+)' undeclared/,
  /^'([^']+)' has not been declared/,
  /^'([^']+)' was not declared in this scope/,
  /^use of undeclared identifier '([^']+)'/,
  /^'([^']+)' is not a variable in clause/,
];
/** gcc's follow-up when an IR name such as `in.addr` breaks the clause, and clang's word for it. */
const BROKEN_ENTRY =
  /^expected .* before '(\.|->)' token|^member reference base type '[^']+' is not a structure or union/;
const IDENTIFIER = /^[A-Za-z_]\w*$/;
const TYPO_GUESS = / did you mean '[^']+'\?$/;
const OTHER_CLAUSES_WITH_NAMES = new Set(['copyin', 'copyprivate']);

export const outOfScopeNames: Rule = {
  name: 'drop-out-of-scope-names',
  apply(input) {
    const onLine = input.errors.filter(
      (message) => message.line - 1 >= input.row && message.line - 1 < input.row + input.lineCount,
    );
    const reported = new Set(NOT_DECLARED.flatMap((pattern) => errorsNaming(onLine, pattern)).map((hit) => hit.name));
    const dropped = new Set<string>();
    const drop = (entry: string, clause: Clause) => {
      if (!isDataSharing(clause) && !OTHER_CLAUSES_WITH_NAMES.has(clause.name)) return false;
      if (entry === 'this' || /[[(]/.test(entry)) return false;
      if (!shouldDrop(entry, input, reported)) return false;
      dropped.add(entry);
      return true;
    };
    const directive = removeEntries(input.state.directive, drop);
    const droppedLeads = new Set([...dropped].map(leadingIdentifier));
    const isDropped = (name: string | null) => name !== null && (dropped.has(name) || droppedLeads.has(name));
    // clang goes on with its guess for an undeclared name ("use of undeclared identifier 'dopp_c';
    // did you mean 'dopp'?") and reports what the guess breaks at the same column ("firstprivate
    // variable cannot be private", "expected variable name" for a function), or an error about
    // another entry with a note there ("private variable cannot be reduction" … "defined as
    // private"): they go with the name.
    const guessed = onLine.filter(
      (message) => TYPO_GUESS.test(message.message) && isDropped(undeclaredName(message.message)),
    );
    const resolved = onLine.filter((message) => {
      const named = undeclaredName(message.message);
      if (named !== null) return isDropped(named);
      const atGuess = (at: { line?: number; column?: number }) =>
        guessed.some((guess) => guess.line === at.line && guess.column === at.column);
      // At the guess, or about another entry with a note at the guess ("defined as private").
      if (atGuess(message) || message.notes.some(atGuess)) return true;
      return (
        (BROKEN_ENTRY.test(message.message) || NOT_A_LIST_ITEM.test(message.message)) &&
        [...dropped].some((entry) => !IDENTIFIER.test(entry))
      );
    });
    return { kind: 'result', state: { ...input.state, directive }, resolved };
  },
};

/** The name a "not declared" message is about, or null for other messages. */
export function undeclaredName(text: string): string | null {
  return NOT_DECLARED.map((pattern) => pattern.exec(text)?.[1]).find((name) => name !== undefined) ?? null;
}

/** Drops only on certain grounds: gcc's word, a non-identifier, a function, or a loop-local name. */
function shouldDrop(entry: string, input: RuleInput, reported: Set<string>): boolean {
  if (!IDENTIFIER.test(entry)) return true;
  // Declared between the directive and its loop: moving the directive below the declaration
  // (move-directive-onto-loop) makes the name exist there.
  if (input.site.declaredBetween.has(entry)) return false;
  if (reported.has(entry)) return true;
  const visible = input.site.visible.get(entry);
  if (visible?.kind === 'function') return true;
  if (visible) return false;
  // Not visible as far as this file shows. Headers can declare globals and classes can have
  // members we cannot see, so only drop on certain grounds.
  if (input.undeclaredInFunction.has(entry)) return true;
  return input.site.declaredInside.has(entry) && input.site.membersKnown;
}
