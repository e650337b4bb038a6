// What a rule sees and what it gives back. A rule looks at one added directive with its scope
// facts and the compiler errors tied to it, and returns the directive it would write instead,
// the errors that change resolves, or a reason to decline.
import type { Directive } from '../../patch/openmp.js';
import type { CompilerMessage } from '../compiler-messages.js';
import type { DirectiveSite } from '../scope.js';

export interface DirectiveState {
  directive: Directive;
  /** Row (0-based, patched source) of the line the directive now stands directly above. */
  aboveRow: number;
}

export interface RuleInput {
  state: DirectiveState;
  /** Where the generated patch put the directive (0-based row in the patched source). */
  row: number;
  lineCount: number;
  site: DirectiveSite;
  /** Errors gcc reported for this directive: on its line or inside the statement it governs. */
  errors: CompilerMessage[];
  /** Names reported undeclared anywhere in the enclosing function (C reports each only once). */
  undeclaredInFunction: Set<string>;
  /** Patched source lines. */
  lines: readonly string[];
  /** Rows of every directive the generated patch added in this file. */
  addedRows: ReadonlySet<number>;
}

export type RuleOutcome =
  | { kind: 'result'; state: DirectiveState; resolved: CompilerMessage[] }
  | { kind: 'declined'; reason: string };

export interface Rule {
  /** Stable name, reported in `rules` and results. */
  name: string;
  apply(input: RuleInput): RuleOutcome;
}

export function unchanged(input: RuleInput): RuleOutcome {
  return { kind: 'result', state: input.state, resolved: [] };
}

/** Errors of the directive whose text matches, with the first capture group (a quoted name). */
export function errorsNaming(errors: readonly CompilerMessage[], pattern: RegExp): { message: CompilerMessage; name: string }[] {
  return errors.flatMap((message) => {
    const match = pattern.exec(message.text);
    return match ? [{ message, name: match[1] ?? '' }] : [];
  });
}
