// What a rule sees and what it gives back. A rule looks at one added directive with its scope
// facts and the compiler errors tied to it, and returns the directive it would write instead,
// the errors that change resolves, or a reason to decline.
import type { Directive } from '../../patch/openmp.js';
import type { Diagnostic } from '../../formats/types.js';
import type { DirectiveSite } from '../scope.js';
import type { SyntaxNode } from '../syntax.js';
import type { TypeScope } from '../translation-unit.js';

/** A diagnostic the build stage parsed, in one of the suggestion's files at a known line. */
export type FileDiagnostic = Diagnostic & { fileId: string; line: number };

export interface DirectiveState {
  directive: Directive;
  /** Row (0-based, patched source) of the line the directive now stands directly above. */
  aboveRow: number;
  /** Code around the directive that a rule rewrites (a local copy, a loop test, a declare reduction). */
  edits: SourceEdits;
}

/** Line edits on the patched source, by 0-based row. */
export interface SourceEdits {
  /** The row's new text. */
  replace: ReadonlyMap<number, string>;
  /** Lines written before the row (before the directive, when the directive stands above it). */
  before: ReadonlyMap<number, readonly string[]>;
  /** Lines written after the row. */
  after: ReadonlyMap<number, readonly string[]>;
}

/**
 * clang's words for a clause entry that is no list item (an element of a C++ container, a member
 * access), with the column on the entry: in C and free functions, and in C++ member functions,
 * where a data member of the class is a list item too. One mistake, two wordings.
 */
export const NOT_A_LIST_ITEM =
  /^expected variable name(?:, (?:data member of current class, )?array element or array section)?$/;

export const NO_EDITS: SourceEdits = { replace: new Map(), before: new Map(), after: new Map() };

/** `edits` with `more` added: replacements override, inserted lines append. */
export function addEdits(edits: SourceEdits, more: Partial<SourceEdits>): SourceEdits {
  const append = (
    into: ReadonlyMap<number, readonly string[]>,
    from: ReadonlyMap<number, readonly string[]> | undefined,
  ) => {
    const merged = new Map(into);
    for (const [row, lines] of from ?? []) merged.set(row, [...(merged.get(row) ?? []), ...lines]);
    return merged;
  };
  return {
    replace: new Map([...edits.replace, ...(more.replace ?? [])]),
    before: append(edits.before, more.before),
    after: append(edits.after, more.after),
  };
}

/** A row's text with the edits so far applied. */
export function lineAt(input: RuleInput, row: number): string {
  return input.state.edits.replace.get(row) ?? input.lines[row] ?? '';
}

export interface RuleInput {
  state: DirectiveState;
  /** Where the generated patch put the directive (0-based row in the patched source). */
  row: number;
  lineCount: number;
  site: DirectiveSite;
  /** Errors the compiler reported for this directive: on its line or inside the statement it governs. */
  errors: FileDiagnostic[];
  /** Names reported undeclared anywhere in the enclosing function (C reports each only once). */
  undeclaredInFunction: Set<string>;
  /** Patched source lines. */
  lines: readonly string[];
  /** Rows of every directive the generated patch added in this file. */
  addedRows: ReadonlySet<number>;
  /** The patched file's syntax tree (pragma lines blanked), for rules that look beyond the site. */
  root: SyntaxNode;
  /** The file is C++ (a class may bring operators; C has none). */
  isCxx: boolean;
  /** Where records, typedefs and operators are looked up: the translation unit when preprocessed, else the file. */
  types: TypeScope;
  /** A row's text as the compiler sees it (the translation unit, macros expanded); absent without the unit. */
  expanded?: (row: number) => string;
}

export type RuleOutcome =
  { kind: 'result'; state: DirectiveState; resolved: FileDiagnostic[] } | { kind: 'declined'; reason: string };

export interface Rule {
  /** Stable name, reported in `rules` and results. */
  name: string;
  apply(input: RuleInput): RuleOutcome;
}

export function unchanged(input: RuleInput): RuleOutcome {
  return { kind: 'result', state: input.state, resolved: [] };
}

/**
 * The identifier a diagnostic's column points at. clang names no variable in many clause errors
 * ("private variable cannot be shared"); it puts the column on the entry instead.
 */
export function nameAt(lines: readonly string[], at: { line?: number; column?: number }): string | null {
  if (at.line === undefined || at.column === undefined) return null;
  return /^[A-Za-z_]\w*/.exec((lines[at.line - 1] ?? '').slice(at.column - 1))?.[0] ?? null;
}

/** The reduction entry clang means: its column is on the entry, or on the operator of `reduction(+:x)`. */
export function reductionEntryAt(lines: readonly string[], at: { line?: number; column?: number }): string | null {
  if (at.line === undefined || at.column === undefined) return null;
  const text = (lines[at.line - 1] ?? '').slice(at.column - 1);
  return nameAt(lines, at) ?? /^[^:()]*:\s*([A-Za-z_]\w*)/.exec(text)?.[1] ?? null;
}

/** Errors of the directive whose text matches, with the first capture group (a quoted name). */
export function errorsNaming(
  errors: readonly FileDiagnostic[],
  pattern: RegExp,
): { message: FileDiagnostic; name: string }[] {
  return errors.flatMap((message) => {
    const match = pattern.exec(message.message);
    return match ? [{ message, name: match[1] ?? '' }] : [];
  });
}

/** Errors whose text matches, with the name their column points at (clang's unnamed wording). */
export function errorsAt(
  errors: readonly FileDiagnostic[],
  lines: readonly string[],
  pattern: RegExp,
): { message: FileDiagnostic; name: string; match: RegExpExecArray }[] {
  return errors.flatMap((message) => {
    const match = pattern.exec(message.message);
    const name = match ? nameAt(lines, message) : null;
    return match && name !== null ? [{ message, name, match }] : [];
  });
}
