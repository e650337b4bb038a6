// The translation unit the compiler sees: the patched file preprocessed by the build's own
// compiler with the suggestion's own flags (`-E`, line markers kept). Scope and type questions
// are asked of it, so arrays declared through macros, typedefs, headers' structs and operators
// and `static const` globals are visible; every edit still goes to the original file's lines,
// which the line markers map back to.
import { parseSource, type SyntaxNode, type SyntaxTree } from './syntax.js';

export interface TranslationUnit {
  tree: SyntaxTree;
  lines: readonly string[];
  /** The first row of the unit that holds the main file's `line` (1-based) or the next line it holds; null past its end. */
  rowOf(line: number): number | null;
  /** The main file's line (1-based) that the unit's `row` holds; null for a row of another file. */
  lineOf(row: number): number | null;
  /** The unit's text of the main file's `line` (1-based): the line with its macros expanded; '' when the unit lacks it. */
  textOf(line: number): string;
}

/** `# 12 "src/x.c" 2`: gcc's and clang's line markers (`#line 12 "x.c"` under some flags). */
const LINE_MARKER = /^#\s*(?:line\s+)?(\d+)\s+"((?:[^"\\]|\\.)*)"/;

/** Each unit row that holds a line of the main file (the first file the markers name), with that line's number (1-based). */
export function mainFileRows(lines: readonly string[]): { line: number; row: number }[] {
  let main: string | null = null;
  let file = '';
  let line = 0;
  const rows: { line: number; row: number }[] = [];
  lines.forEach((content, row) => {
    const marker = LINE_MARKER.exec(content);
    if (marker) {
      file = marker[2]!;
      main ??= file;
      line = Number(marker[1]);
      return;
    }
    if (file === main) rows.push({ line, row });
    line++;
  });
  return rows;
}

export async function parseTranslationUnit(text: string): Promise<TranslationUnit> {
  const lines = text.split('\n');
  const mainRows = mainFileRows(lines);
  // Markers are blanked, not removed, so rows stay the preprocessor's.
  lines.forEach((content, row) => {
    if (LINE_MARKER.test(content)) lines[row] = ' '.repeat(content.length);
  });
  const tree = await parseSource(lines.join('\n'));
  return {
    tree,
    lines,
    lineOf: (row) => mainRows.find((entry) => entry.row === row)?.line ?? null,
    rowOf: (wanted) => mainRows.find((entry) => entry.line >= wanted)?.row ?? null,
    textOf: (wanted) =>
      mainRows
        .filter((entry) => entry.line === wanted)
        .map((entry) => lines[entry.row])
        .join('\n'),
  };
}

/**
 * Whether gcc wrote the unit: its line markers name the command line `<command-line>`, clang's
 * (14 and 19) `<command line>`.
 */
export function preprocessedByGcc(text: string): boolean {
  return /^# \d+ "<command-line>"/m.test(text);
}

/** Where types, records and operators are looked up: the translation unit, or the file alone. */
export interface TypeScope {
  root: SyntaxNode;
  lines: readonly string[];
}
