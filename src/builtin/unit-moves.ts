// The translation unit follows the file when a rule moves a whole line (the task region's closing
// brace, task-region-brace.ts): the unit's rows of the moved stretch are moved the same way, so
// every later question about a row of the file is asked of the same row of the unit.
import { LINE_MARKER } from './translation-unit.js';

/** A line of the file taken from row `from` and put back at row `to` (0-based, `to` ≥ `from`, counted after the removal). */
export interface LineMove { from: number; to: number }

/**
 * The unit's text with each move made on the main file's rows, in order; null when the stretch
 * is not one unit row per file line without a line marker inside (a macro call over several
 * lines, an `#include`), so it cannot be moved row for row.
 */
export function moveUnitLines(text: string, moves: readonly LineMove[]): string | null {
  let lines = text.split('\n');
  for (const move of moves) {
    const rows = mainRows(lines);
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

/** The unit row of each line of the main file (1-based line → 0-based row), the first when it spans several. */
function mainRows(lines: readonly string[]): Map<number, number> {
  const rows = new Map<number, number>();
  let main: string | null = null;
  let file = '';
  let line = 0;
  lines.forEach((content, row) => {
    const marker = LINE_MARKER.exec(content);
    if (marker) {
      file = marker[2]!;
      main ??= file;
      line = Number(marker[1]);
      return;
    }
    if (file === main && !rows.has(line)) rows.set(line, row);
    line++;
  });
  return rows;
}
