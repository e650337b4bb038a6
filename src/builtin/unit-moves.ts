// The translation unit follows the file when a rule moves a whole line (the task region's closing
// brace, task-region-brace.ts): the unit's rows of the moved stretch are moved the same way, so
// every later question about a row of the file is asked of the same row of the unit.
import { mainFileRows } from './translation-unit.js';

/** A line of the file taken from row `from` and put back at row `to` (0-based, `to` ≥ `from`, counted after the removal). */
export interface LineMove {
  from: number;
  to: number;
}

/**
 * The unit's text with each move made on the main file's rows, in order; null when the stretch
 * is not one unit row per file line without a line marker inside (a macro call over several
 * lines, an `#include`), so it cannot be moved row for row.
 */
export function moveUnitLines(text: string, moves: readonly LineMove[]): string | null {
  let lines = text.split('\n');
  for (const move of moves) {
    const rows = new Map<number, number>();
    // A line the unit spans over several rows starts at its first.
    for (const { line, row } of mainFileRows(lines)) if (!rows.has(line)) rows.set(line, row);
    const first = rows.get(move.from + 1);
    if (first === undefined) return null;
    for (let line = move.from + 1; line <= move.to + 1; line++) {
      if (rows.get(line) !== first + (line - move.from - 1)) return null;
    }
    const moved = [...lines];
    const [taken] = moved.splice(first, 1);
    moved.splice(first + (move.to - move.from), 0, taken!);
    lines = moved;
  }
  return lines.join('\n');
}
