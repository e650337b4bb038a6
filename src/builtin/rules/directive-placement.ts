// A loop directive that does not stand directly above its loop (design.md, "Directive
// identity"): above a block, an `if` or a label that leads into the loop, above the sequential
// setup DiscoPoP's line numbers put it over (statements, declarations, labels), at the closing
// brace of the block before the loop, or above another pragma. The directive moves onto its loop,
// past comments and blank lines, which stay. Declines when what stands between is not setup (a
// jump, a second loop), when the loop shares its line with code other than a label, or when the
// statement is no `for` loop.
import { isOmpPragma } from '../../patch/openmp.js';
import { earlyExit } from '../scope.js';
import { isLoopConstruct } from './clauses.js';
import { undeclaredName } from './out-of-scope-names.js';
import { addEdits, lineAt, nameAt, type FileDiagnostic, type Rule, type RuleInput, unchanged } from './rule.js';

const PLACEMENT_ERROR = /^for statement expected before|^statement after '#pragma omp [^']*' must be a for loop/;
/**
 * clang parses the statement after a loop directive as the loop it wants: a declaration there is
 * "expected expression", a closing brace "expected statement" (tied to the directive by position).
 */
const CLANG_PARSE_ERROR = /^expected (?:expression|statement)$/;
/** clang, at a `goto` whose label the misplaced directive pulled into its region (tied by repair-file). */
const LABEL_ERROR = /^use of undeclared label '/;
const LABEL_PREFIX = /^\s*[A-Za-z_]\w*\s*:\s*$/;

/**
 * The errors the move resolves: the compilers' words for a misplaced directive, and the names of
 * declarations the directive now stands below (on its own line, and clang's follow-ons in the
 * loop, where the declaration it swallowed left them undeclared).
 */
function placementErrors(input: RuleInput, loopRow: number | null): FileDiagnostic[] {
  // clang corrects a name it cannot find ("did you mean 'cur_inds'?") and goes on with the
  // correction, so the clause then names that variable twice: a follow-on of the same name.
  // Any other error on such a line comes from the guess's type (`returning 'int (int)' …`).
  const correctedAt = input.errors.flatMap((message) => {
    const name = undeclaredName(message.message);
    const guess = / did you mean '([^']+)'\?$/.exec(message.message)?.[1];
    return name !== null && guess !== undefined && input.site.declaredBetween.has(name)
      ? [{ guess, line: message.line }]
      : [];
  });
  const corrected = new Set(correctedAt.map(({ guess }) => guess));
  const correctedLines = new Set(correctedAt.map(({ line }) => line));
  return input.errors.filter((message) => {
    if (PLACEMENT_ERROR.test(message.message) || LABEL_ERROR.test(message.message) || correctedLines.has(message.line))
      return true;
    const row = message.line - 1;
    if (CLANG_PARSE_ERROR.test(message.message))
      return row >= input.row + input.lineCount && (loopRow === null || row < loopRow);
    if (CORRECTED_TWICE.test(message.message)) return corrected.has(nameAt(input.lines, message) ?? '');
    const name = undeclaredName(message.message);
    return name !== null && input.site.declaredBetween.has(name);
  });
}

/** clang, when its correction of an undeclared name lands on a variable another clause names. */
const CORRECTED_TWICE = /^\w+ variable cannot be \w+$/;

export const directivePlacement: Rule = {
  name: 'move-directive-onto-loop',
  apply(input) {
    const { directive } = input.state;
    const lookup = input.site.lookup;
    const errors = placementErrors(input, lookup.kind === 'loop' ? lookup.loop.startPosition.row : null);
    if (!isLoopConstruct(directive)) return unchanged(input);
    if (lookup.kind === 'not-a-loop') {
      return errors.length > 0 ? { kind: 'declined', reason: lookup.reason } : unchanged(input);
    }
    if (errors.length === 0 && lookup.path.length === 0) return unchanged(input);
    const loopRow = lookup.loop.startPosition.row;
    const between = input.lines.slice(input.row + input.lineCount, loopRow);
    if (lookup.path.length === 0 && between.every(isBlankOrComment)) return unchanged(input);
    // A pragma between the two cannot be stepped over: gcc wants the loop pragma (OpenMP or
    // `GCC ivdep`/`unroll`) directly above the `for`, so one of the two would have to go.
    const pragmaIndex = between.findIndex((line) => /^\s*#\s*pragma\b/.test(line));
    if (pragmaIndex >= 0) {
      const pragmaRow = input.row + input.lineCount + pragmaIndex;
      const what = input.addedRows.has(pragmaRow)
        ? 'a second directive of this suggestion'
        : isOmpPragma(between[pragmaIndex]!)
          ? 'an OpenMP directive of the original source'
          : `'${between[pragmaIndex]!.trim()}'`;
      return {
        kind: 'declined',
        reason: `${what} (line ${pragmaRow + 1}) stands between the directive and its loop at line ${loopRow + 1}; one of the two would have to go`,
      };
    }
    // Moved onto a loop that ends early, the directive would only trade the placement error for
    // "break statement used with OpenMP for loop": the loop needs restructuring, the agent's work.
    const exit = earlyExit(lookup.loop);
    if (exit !== null) {
      const jump = exit.type.replace(/_statement$/, '');
      return {
        kind: 'declined',
        reason: `the loop at line ${loopRow + 1} that the directive means leaves early ('${jump}' at line ${exit.startPosition.row + 1}); it must be restructured`,
      };
    }
    const loopLine = lineAt(input, loopRow);
    const prefix = loopLine.slice(0, lookup.loop.startPosition.column);
    const indent = /^\s*/.exec(loopLine)![0];
    if (prefix.trim() !== '') {
      // `init: for (...)`: the label keeps its line and the loop moves to the next, which changes
      // nothing the program does; any other code sharing the line is left to the agent.
      if (!LABEL_PREFIX.test(prefix) || /^\s*default\s*:/.test(prefix)) {
        return {
          kind: 'declined',
          reason: `the loop at line ${loopRow + 1} shares its line with '${prefix.trim()}'; putting the directive above it needs that line split`,
        };
      }
      const edits = addEdits(input.state.edits, {
        before: new Map([[loopRow, [prefix.trimEnd()]]]),
        replace: new Map([[loopRow, indent + loopLine.slice(lookup.loop.startPosition.column)]]),
      });
      return {
        kind: 'result',
        state: { ...input.state, directive: { ...directive, indent }, aboveRow: loopRow, edits },
        resolved: errors,
      };
    }
    return {
      kind: 'result',
      state: { ...input.state, directive: { ...directive, indent }, aboveRow: loopRow },
      resolved: errors,
    };
  },
};

function isBlankOrComment(line: string): boolean {
  return /^\s*$/.test(line) || /^\s*\/\//.test(line) || /^\s*\/\*.*\*\/\s*$/.test(line);
}
