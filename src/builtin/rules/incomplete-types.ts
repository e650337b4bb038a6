// An object of incomplete type (`extern double table[];`) in a privatizing clause: a private
// copy needs the size, which this translation unit does not know. Such an object can only be
// shared; on constructs without `shared` it is dropped from the privatizing clause.
import { addEntry, allowsShared, hasEntry, removeEntries } from './clauses.js';
import { errorsAt, errorsNaming, type Rule, unchanged } from './rule.js';

const PRIVATIZING = new Set(['private', 'firstprivate', 'lastprivate']);

export const incompleteTypes: Rule = {
  name: 'share-incomplete-types',
  apply(input) {
    const reported = [
      ...errorsNaming(input.errors, /^'([^']+)' has (?:an? )?incomplete type/),
      ...errorsAt(input.errors, input.lines, /^an? \w+ variable with incomplete type/),
    ];
    if (reported.length === 0) return unchanged(input);
    let directive = input.state.directive;
    const moved = new Set<string>();
    for (const { name } of reported) {
      if (!directive.clauses.some((clause) => PRIVATIZING.has(clause.name) && (clause.vars ?? []).includes(name)))
        continue;
      directive = removeEntries(directive, (entry, clause) => entry === name && PRIVATIZING.has(clause.name));
      if (allowsShared(directive) && !hasEntry(directive, 'shared', name))
        directive = addEntry(directive, 'shared', name);
      moved.add(name);
    }
    // g++ follows up on the directive line without naming the variable.
    const followUps =
      moved.size > 0
        ? input.errors.filter((message) => /^invalid use of array with unspecified bounds/.test(message.message))
        : [];
    const resolved = [...reported.filter((hit) => moved.has(hit.name)).map((hit) => hit.message), ...followUps];
    return { kind: 'result', state: { ...input.state, directive }, resolved };
  },
};
