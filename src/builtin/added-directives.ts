// The OpenMP directives a generated patch added, located in the patched source. These lines are
// the only ones the built-in repairer may change.
import { parsePatch } from 'diff';
import { isOmpPragma, joinContinuations } from '../patch/openmp.js';

export interface AddedDirective {
  /** 0-based first row in the patched source. */
  row: number;
  /** Number of physical lines (more than one with backslash continuations). */
  lineCount: number;
  /** The logical directive text (continuations joined). */
  text: string;
}

export type AddedDirectivesResult = { ok: true; directives: AddedDirective[] } | { ok: false; reason: string };

export function findAddedDirectives(generatedPatch: string, patchedSource: string): AddedDirectivesResult {
  const patchedLines = patchedSource.split('\n');
  const expected = addedPragmaGroups(generatedPatch);
  const taken = new Set<number>();
  const directives: AddedDirective[] = [];
  for (const group of expected) {
    const row = locate(group.lines, group.expectedRow, patchedLines, taken);
    if (row === null)
      return { ok: false, reason: `the added line '${group.lines[0]!.trim()}' is not in the patched source` };
    taken.add(row);
    directives.push({ row, lineCount: group.lines.length, text: joinContinuations(group.lines) });
  }
  directives.sort((a, b) => a.row - b.row);
  return { ok: true, directives };
}

/** Rows (0-based, patched source) of the lines the generated patch added whose text `wanted` accepts. */
export function findAddedLines(
  generatedPatch: string,
  patchedSource: string,
  wanted: (text: string) => boolean,
): number[] {
  const patchedLines = patchedSource.split('\n');
  const taken = new Set<number>();
  const rows: number[] = [];
  for (const filePatch of parsePatch(generatedPatch)) {
    for (const hunk of filePatch.hunks) {
      let newRow = hunk.newStart - 1;
      for (const line of hunk.lines) {
        if (line[0] === '\\' || line[0] === '-') continue;
        if (line[0] === '+' && wanted(line.slice(1))) {
          const row = locate([line.slice(1)], newRow, patchedLines, taken);
          if (row !== null) {
            taken.add(row);
            rows.push(row);
          }
        }
        newRow++;
      }
    }
  }
  return rows.sort((a, b) => a - b);
}

interface PragmaGroup {
  expectedRow: number;
  lines: string[];
}

function addedPragmaGroups(patchText: string): PragmaGroup[] {
  const groups: PragmaGroup[] = [];
  for (const filePatch of parsePatch(patchText)) {
    for (const hunk of filePatch.hunks) {
      let newRow = hunk.newStart - 1;
      let open: PragmaGroup | null = null;
      for (const line of hunk.lines) {
        const marker = line[0];
        if (marker === '\\') continue;
        if (marker === '-') {
          open = null;
          continue;
        }
        const text = line.slice(1);
        if (marker === '+' && open !== null) {
          open.lines.push(text);
        } else if (marker === '+' && isOmpPragma(text)) {
          open = { expectedRow: newRow, lines: [text] };
          groups.push(open);
        }
        if (open !== null && !/\\\s*$/.test(open.lines[open.lines.length - 1]!)) open = null;
        if (marker !== '+') open = null;
        newRow++;
      }
    }
  }
  return groups;
}

/** The hunk's own row when the patch applied exactly, else the nearest identical run of lines. */
function locate(lines: string[], expectedRow: number, patched: string[], taken: Set<number>): number | null {
  const matchesAt = (row: number) => !taken.has(row) && lines.every((line, offset) => patched[row + offset] === line);
  for (let distance = 0; distance < patched.length; distance++) {
    if (matchesAt(expectedRow - distance)) return expectedRow - distance;
    if (matchesAt(expectedRow + distance)) return expectedRow + distance;
  }
  return null;
}
