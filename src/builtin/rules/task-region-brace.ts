// DiscoPoP's task regions (its new task detector) open with `#pragma omp parallel`, `#pragma omp
// single` and `{` above the first task, and close with `}` inserted before the *last line* of the
// last task: for a one-line task that puts the brace between the last `#pragma omp task` and its
// statement, so the directive governs nothing (gcc: "expected expression before '}' token", clang:
// "expected statement"). The fix moves the brace below that statement, which then runs as the last
// task inside the region, as the generator meant; the directive stays where it is. The brace is not
// a directive line, so --strict refuses the repair, as it refuses any change to a line other than a
// directive.
import { parseDirective } from '../../patch/openmp.js';
import { findAddedLines, type AddedDirective } from '../added-directives.js';
import { analyzeSite } from '../scope.js';
import type { SyntaxTree } from '../syntax.js';
import type { LineMove } from '../unit-moves.js';
import type { FileDiagnostic } from './rule.js';

export const TASK_REGION_BRACE = 'move-task-region-brace';

export type BraceMoves =
  | { kind: 'none' }
  | { kind: 'moved'; lines: string[]; carriageReturns: boolean[]; errors: FileDiagnostic[]; moves: LineMove[] }
  | { kind: 'declined'; reason: string };

export interface BraceInput {
  generatedPatch: string;
  lines: readonly string[];
  carriageReturns: readonly boolean[];
  tree: SyntaxTree;
  added: readonly AddedDirective[];
  errors: readonly FileDiagnostic[];
}

/**
 * Moves every added `}` that stands right below an added `#pragma omp task` and carries an error to
 * the line after the statement below it. Returns the file's new lines, and the errors left over
 * (renumbered for the moved lines); the errors on the braces are resolved.
 */
export function moveTaskRegionBraces(input: BraceInput): BraceMoves {
  const taskAbove = new Map(
    input.added
      .filter((directive) => parseDirective(directive.text)?.construct === 'task')
      .map((directive) => [directive.row + directive.lineCount, directive] as const),
  );
  const erroneous = new Set(input.errors.map((error) => error.line - 1));
  const braces = findAddedLines(input.generatedPatch, input.lines.join('\n'), (text) => text.trim() === '}').filter(
    (row) => taskAbove.has(row) && erroneous.has(row),
  );
  if (braces.length === 0) return { kind: 'none' };

  const lines = [...input.lines];
  const carriageReturns = [...input.carriageReturns];
  let errors = [...input.errors];
  const moves: LineMove[] = [];
  // Bottom up: a move renumbers only the rows below the brace it moves.
  for (const brace of [...braces].reverse()) {
    const statement = analyzeSite(input.tree, brace + 1).target;
    const next = input.lines.findIndex((line, row) => row > brace && line.trim() !== '');
    if (statement === null || statement.startPosition.row !== next) {
      return {
        kind: 'declined',
        reason: `line ${brace + 1}: the task region's closing brace stands below the last '#pragma omp task', and no statement of that task follows it`,
      };
    }
    const last = statement.endPosition.row;
    const [text] = lines.splice(brace, 1);
    const [cr] = carriageReturns.splice(brace, 1);
    lines.splice(last, 0, text!);
    carriageReturns.splice(last, 0, cr!);
    moves.push({ from: brace, to: last });
    errors = errors
      .filter((error) => error.line - 1 !== brace)
      .map((error) => (error.line - 1 > brace && error.line - 1 <= last ? { ...error, line: error.line - 1 } : error));
  }
  return { kind: 'moved', lines, carriageReturns, errors, moves };
}
