// How a candidate's directive differs from the generated one in its clauses: the changes recorded
// in results.json, and a clause that switches the directive off.
import type { ClauseChange } from '../formats/results.js';
import { renderClause, type Clause, type Directive } from './openmp.js';

/** What the comparison needs of a directive placed in original-file terms. */
interface ComparedDirective {
  directive: Directive;
  text: string;
  /** Original line right below the directive. */
  below: number | null;
}

/** An `if` whose condition is a literal false (`0`, `0L`, `0.0`, `false`, `!1`, in parentheses or not), with or without a `name:` modifier. */
const FALSE_CONDITION =
  /^(?:[A-Za-z_][\w ]*:)?\s*(?:\(\s*)*(?:0+[uUlL]*|0[xX]0+[uUlL]*|(?:0+\.0*|\.0+)[fFlL]?|false|!\s*(?:1|true))(?:\s*\))*\s*$/;
/** A thread count of literal one, with or without an OpenMP 6 `strict:` modifier. */
const ONE_THREAD = /^(?:[A-Za-z_]\w*\s*:)?\s*(?:\(\s*)*1[uUlL]*(?:\s*\))*\s*$/;

function offClause(clause: Clause): boolean {
  if (clause.args === null) return false;
  return (
    (clause.name === 'if' && FALSE_CONDITION.test(clause.args)) ||
    (clause.name === 'num_threads' && ONE_THREAD.test(clause.args))
  );
}

/**
 * Why the candidate's directive no longer runs in parallel: a clause that surely switches it off
 * (`if` with a literal false condition, `num_threads(1)`) which the generated directive did not
 * carry. A condition that depends on the program (`if(n > 1000)`) is tuning and stays allowed.
 * Null when none.
 */
export function switchedOffByClause(candidate: Directive, generated: Directive): string | null {
  const clause = candidate.clauses.find(
    (entry) => offClause(entry) && !generated.clauses.some((other) => other.name === entry.name && offClause(other)),
  );
  if (clause === undefined) return null;
  const region = /\bparallel\b/.test(candidate.construct)
    ? 'the parallel region'
    : `the \`${candidate.construct}\` construct`;
  const effect =
    clause.name === 'num_threads' ? 'runs it on one thread' : 'makes it run as if the directive were not there';
  return `switches ${region} off: \`${renderClause(clause)}\` ${effect}; remove that clause (other clauses may change, but the directive must stay in effect)`;
}

interface ClauseKey {
  key: string;
  clause: Clause;
}

function keyed(directive: Directive): ClauseKey[] {
  return directive.clauses.map((clause) => ({
    key: clause.modifier === undefined ? clause.name : `${clause.name}(${clause.modifier}:)`,
    clause,
  }));
}

/**
 * How the candidate's clauses differ from the generated ones, said once per fact: a clause spelled
 * differently with the same list is renamed; a removed or added clause is named with its list;
 * a variable is moved when it shows up in a clause that did not hold it before, and only
 * otherwise removed or added.
 */
export function clauseChanges(
  generated: ComparedDirective,
  candidate: ComparedDirective,
  file: string,
): ClauseChange[] {
  const changes: ClauseChange[] = [];
  const directive = generated.text;
  const before = keyed(generated.directive);
  const after = keyed(candidate.directive);
  const sameClause = (a: ClauseKey, b: ClauseKey) =>
    a.key === b.key && (a.clause.vars !== undefined || a.clause.args === b.clause.args);
  let removed = before.filter((entry) => !after.some((other) => sameClause(entry, other)));
  let added = after.filter((entry) => !before.some((other) => sameClause(entry, other)));
  const renamedTo = new Map<string, string>();

  for (const gone of [...removed]) {
    const renamed = added.find(
      (entry) => entry.clause.modifier === gone.clause.modifier && entry.clause.args === gone.clause.args,
    );
    if (!renamed) continue;
    changes.push({
      file,
      directive,
      kind: 'clause-renamed',
      from: renderArgs(gone.clause),
      to: renderArgs(renamed.clause),
    });
    renamedTo.set(gone.key, renamed.key);
    removed = removed.filter((entry) => entry !== gone);
    added = added.filter((entry) => entry !== renamed);
  }
  for (const { key, clause } of removed)
    changes.push({ file, directive, kind: 'clause-removed', clause: key, from: renderArgs(clause) });
  for (const { key, clause } of added)
    changes.push({ file, directive, kind: 'clause-added', clause: key, to: renderArgs(clause) });

  const holders = (list: ClauseKey[], variable: string) =>
    new Set(list.filter((entry) => entry.clause.vars?.includes(variable)).map((entry) => entry.key));
  const variables = new Set([...before, ...after].flatMap((entry) => entry.clause.vars ?? []));
  for (const variable of variables) {
    const was = holders(before, variable);
    const is = holders(after, variable);
    const left = [...was].filter((key) => !is.has(key) && !is.has(renamedTo.get(key) ?? ''));
    const joined = [...is].filter(
      (key) => !was.has(key) && ![...renamedTo].some(([from, to]) => to === key && was.has(from)),
    );
    const wholeClauseGone = (key: string) => removed.some((entry) => entry.key === key);
    const wholeClauseNew = (key: string) => added.some((entry) => entry.key === key);
    for (const [index, from] of left.entries()) {
      const to = joined[index];
      if (to !== undefined) changes.push({ file, directive, kind: 'variable-moved', variable, from, to });
      else if (!wholeClauseGone(from))
        changes.push({ file, directive, kind: 'variable-removed', clause: from, variable });
    }
    for (const to of joined.slice(left.length)) {
      if (!wholeClauseNew(to)) changes.push({ file, directive, kind: 'variable-added', clause: to, variable });
    }
  }
  if (generated.below !== candidate.below) {
    changes.push({
      file,
      directive,
      kind: 'directive-moved',
      from: lineName(generated.below),
      to: lineName(candidate.below),
    });
  }
  return changes;
}

function renderArgs(clause: Clause): string {
  return clause.args === null ? clause.name : `${clause.name}(${clause.args})`;
}

function lineName(original: number | null): string {
  return original === null ? 'above a new line' : `above line ${original + 1}`;
}
