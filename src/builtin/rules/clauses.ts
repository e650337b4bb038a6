// Clause edits shared by the rules. Every edit returns a new directive; a variable-list clause
// left without variables disappears (`private()` is not valid OpenMP), the construct always stays.
import type { Clause, Directive } from '../../patch/openmp.js';

// `linear(list : step)` is left alone: the directive parser reads its list as the modifier, and
// the generator never writes it.
const DATA_SHARING_CLAUSES = ['private', 'firstprivate', 'lastprivate', 'shared', 'reduction'] as const;
const DATA_SHARING = new Set<string>(DATA_SHARING_CLAUSES);

/** The generator's clause order, used when a rule adds a clause the directive did not have. */
const GENERATOR_ORDER = ['collapse', 'firstprivate', 'private', 'lastprivate', 'shared', 'reduction'];

export function isDataSharing(clause: Clause): boolean {
  return DATA_SHARING.has(clause.name) && clause.vars !== undefined;
}

/** The identifier a clause entry starts with (`in` for `in.addr`, `a` for `a[0:n]`). */
export function leadingIdentifier(entry: string): string {
  return /^[A-Za-z_]\w*/.exec(entry.trim())?.[0] ?? entry.trim();
}

export function removeEntries(directive: Directive, drop: (entry: string, clause: Clause) => boolean): Directive {
  const clauses: Clause[] = [];
  for (const clause of directive.clauses) {
    if (clause.vars === undefined) {
      clauses.push(clause);
      continue;
    }
    const vars = clause.vars.filter((entry) => !drop(entry, clause));
    if (vars.length === clause.vars.length) clauses.push(clause);
    else if (vars.length > 0) clauses.push({ ...clause, vars, args: renderArgs(clause.modifier, vars) });
  }
  return { ...directive, clauses };
}

export function addEntry(directive: Directive, clauseName: string, entry: string): Directive {
  const existing = directive.clauses.findIndex(
    (clause) => clause.name === clauseName && clause.vars !== undefined && clause.modifier === undefined,
  );
  if (existing >= 0) {
    const clause = directive.clauses[existing]!;
    if (clause.vars!.includes(entry)) return directive;
    const vars = [...clause.vars!, entry];
    const clauses = [...directive.clauses];
    clauses[existing] = { ...clause, vars, args: renderArgs(undefined, vars) };
    return { ...directive, clauses };
  }
  const added: Clause = { name: clauseName, args: entry, vars: [entry] };
  const rank = (name: string) => {
    const index = GENERATOR_ORDER.indexOf(name);
    return index < 0 ? GENERATOR_ORDER.length : index;
  };
  const position = directive.clauses.findIndex((clause) => rank(clause.name) > rank(clauseName));
  const clauses = [...directive.clauses];
  clauses.splice(position < 0 ? clauses.length : position, 0, added);
  return { ...directive, clauses };
}

export function hasEntry(directive: Directive, clauseName: string, entry: string): boolean {
  return directive.clauses.some((clause) => clause.name === clauseName && (clause.vars ?? []).includes(entry));
}

/** Whether the construct accepts `shared` (worksharing and simd constructs do not). */
export function allowsShared(directive: Directive): boolean {
  return /\b(parallel|task|taskloop|teams)\b/.test(directive.construct);
}

export function isLoopConstruct(directive: Directive): boolean {
  return /\b(for|simd|loop|distribute|taskloop)\b/.test(directive.construct);
}

function renderArgs(modifier: string | undefined, vars: string[]): string {
  return `${modifier !== undefined ? `${modifier}:` : ''}${vars.join(',')}`;
}

/** The directive with one entry of one clause written differently (`a.sum` → `a_sum`). */
export function replaceEntry(directive: Directive, clauseName: string, entry: string, replacement: string): Directive {
  const clauses = directive.clauses.map((clause) => {
    if (clause.name !== clauseName || !(clause.vars ?? []).includes(entry)) return clause;
    const vars = clause.vars!.map((v) => (v === entry ? replacement : v));
    return { ...clause, vars, args: renderArgs(clause.modifier, vars) };
  });
  return { ...directive, clauses };
}
