// The OpenMP directive model: a `#pragma omp` line split into its construct and its clauses, and
// rendered back in the patch generator's form (every clause followed by one space).

const DIRECTIVE_WORDS = new Set([
  'parallel',
  'for',
  'do',
  'simd',
  'task',
  'taskloop',
  'taskwait',
  'taskgroup',
  'taskyield',
  'target',
  'teams',
  'distribute',
  'sections',
  'section',
  'single',
  'master',
  'masked',
  'critical',
  'atomic',
  'barrier',
  'flush',
  'ordered',
  'loop',
  'data',
  'enter',
  'exit',
  'update',
  'declare',
  'reduction',
  'threadprivate',
  'cancel',
  'cancellation',
  'point',
  'scope',
  'workshare',
  'end',
]);

/** Clauses whose argument is a list of variables, optionally after `modifier:`. */
export const VARIABLE_LIST_CLAUSES = new Set([
  'private',
  'firstprivate',
  'lastprivate',
  'shared',
  'reduction',
  'in_reduction',
  'task_reduction',
  'linear',
  'aligned',
  'copyin',
  'copyprivate',
  'map',
  'depend',
  'depends',
  'nontemporal',
  'uniform',
  'is_device_ptr',
  'use_device_ptr',
  'use_device_addr',
  'has_device_addr',
  'allocate',
  'inclusive',
  'exclusive',
]);

/** Clauses that give each thread its own copy of a variable. */
export const PRIVATIZING_CLAUSES = new Set(['private', 'firstprivate', 'lastprivate', 'reduction', 'linear']);

export interface Clause {
  name: string;
  /** Text inside the parentheses, as written; null for a bare clause such as `nowait`. */
  args: string | null;
  /** For variable-list clauses: the part before `:` (`+` in `reduction(+:sum)`, `in` in `depend(in: a)`). */
  modifier?: string;
  /** For variable-list clauses: the variable names, trimmed. */
  vars?: string[];
}

export interface Directive {
  /** Leading whitespace of the `#` line. */
  indent: string;
  /** Construct words joined by one space, e.g. `parallel for`, `critical(name)`. */
  construct: string;
  clauses: Clause[];
}

const PRAGMA_OMP = /^(\s*)#\s*pragma\s+omp\b(.*)$/;

export function isOmpPragma(line: string): boolean {
  return PRAGMA_OMP.test(line);
}

/**
 * DiscoPoP's device-to-device update, `#pragma omp target update Device(1) --> Device(0 -> 1)
 * Var(x[0:n])`: its generator writes this where OpenMP has no directive (a transfer between two
 * devices), so no clause edit makes it compile and only deleting the line would.
 */
const DEVICE_UPDATE_PSEUDO_DIRECTIVE = /^\s*#\s*pragma\s+omp\s+target\s+update\s+Device\s*\([^)]*\)\s*-->/;

export function isPseudoDirective(line: string): boolean {
  return DEVICE_UPDATE_PSEUDO_DIRECTIVE.test(line);
}

/** Joins backslash-continued physical lines into one logical directive line. */
export function joinContinuations(lines: readonly string[]): string {
  return lines.map((line, index) => (index < lines.length - 1 ? line.replace(/\\\s*$/, ' ') : line)).join('');
}

/** Parses one logical `#pragma omp` line; returns null for anything else. */
export function parseDirective(line: string): Directive | null {
  const match = PRAGMA_OMP.exec(line);
  if (!match) return null;
  const indent = match[1] ?? '';
  const tokens = tokenize(match[2] ?? '');
  const constructWords: string[] = [];
  let index = 0;
  while (index < tokens.length) {
    const token = tokens[index]!;
    const word = token.name;
    const isConstruct =
      DIRECTIVE_WORDS.has(word) &&
      (token.args === null || word === 'critical' || word === 'reduction' || word === 'cancel') &&
      !(word === 'reduction' && constructWords.length > 0);
    if (!isConstruct) break;
    constructWords.push(token.args === null ? word : `${word}(${token.args})`);
    index++;
  }
  const clauses = tokens.slice(index).map(toClause);
  return { indent, construct: constructWords.join(' '), clauses };
}

function toClause(token: { name: string; args: string | null }): Clause {
  const clause: Clause = { name: token.name, args: token.args };
  if (token.args !== null && VARIABLE_LIST_CLAUSES.has(token.name)) {
    const colon = findTopLevelColon(token.args);
    const list = colon >= 0 ? token.args.slice(colon + 1) : token.args;
    if (colon >= 0) clause.modifier = token.args.slice(0, colon).trim();
    clause.vars = splitTopLevel(list, ',')
      .map((name) => name.trim())
      .filter((name) => name.length > 0);
  }
  return clause;
}

/** Renders in the generator's form: construct and each clause followed by one space. */
export function renderDirective(directive: Directive): string {
  let text = `${directive.indent}#pragma omp ${directive.construct} `;
  for (const clause of directive.clauses) text += `${renderClause(clause)} `;
  return text;
}

export function renderClause(clause: Clause): string {
  if (clause.vars !== undefined) {
    const list = clause.vars.join(',');
    return `${clause.name}(${clause.modifier !== undefined ? `${clause.modifier}:` : ''}${list})`;
  }
  return clause.args === null ? clause.name : `${clause.name}(${clause.args})`;
}

function tokenize(text: string): { name: string; args: string | null }[] {
  const tokens: { name: string; args: string | null }[] = [];
  let position = 0;
  while (position < text.length) {
    const rest = text.slice(position);
    const space = /^[\s,]+/.exec(rest);
    if (space) {
      position += space[0].length;
      continue;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(rest);
    if (!word) {
      // Something a clause list cannot hold; keep it as an opaque token so nothing is lost.
      const junk = /^\S+/.exec(rest)![0];
      tokens.push({ name: junk, args: null });
      position += junk.length;
      continue;
    }
    position += word[0].length;
    let args: string | null = null;
    const afterWord = /^\s*\(/.exec(text.slice(position));
    if (afterWord) {
      const open = position + afterWord[0].length - 1;
      const close = matchingParen(text, open);
      args = text.slice(open + 1, close < 0 ? text.length : close);
      position = close < 0 ? text.length : close + 1;
    }
    tokens.push({ name: word[0], args });
  }
  return tokens;
}

function matchingParen(text: string, open: number): number {
  let depth = 0;
  for (let index = open; index < text.length; index++) {
    if (text[index] === '(') depth++;
    else if (text[index] === ')' && --depth === 0) return index;
  }
  return -1;
}

function findTopLevelColon(text: string): number {
  let depth = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === '(' || char === '[') depth++;
    else if (char === ')' || char === ']') depth--;
    else if (char === ':' && depth === 0 && text[index + 1] !== ':' && text[index - 1] !== ':') return index;
  }
  return -1;
}

function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === '(' || char === '[') depth++;
    else if (char === ')' || char === ']') depth--;
    else if (char === separator && depth === 0) {
      parts.push(text.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}
