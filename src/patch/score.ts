// Scores a hunk's old side against places in a file, line by line (exact, loose, near, mismatch;
// weights in similarity.ts), at a straight placement or with one line missing on either side.
import type { FileView } from './file-view.js';
import type { Hunk, ScoreParts } from './model.js';
import { isOmpPragma } from './openmp.js';
import { compareLines, MATCH_WEIGHT, type LineForms, type LineMatch } from './similarity.js';

/** Below this a place is not a match at all. */
export const FUZZY_GATE = 0.6;

/** Old-side indexes that must match at least loosely: removed lines, and the line a directive lands on. */
export function anchoredLines(hunk: Hunk): Set<number> {
  const anchored = new Set<number>();
  let oldIndex = 0;
  let afterDirective = false;
  for (const line of hunk.lines) {
    if (line.kind === 'add') {
      if (isOmpPragma(line.text)) afterDirective = true;
      continue;
    }
    if (line.kind === 'remove' || afterDirective) anchored.add(oldIndex);
    afterDirective = false;
    oldIndex++;
  }
  return anchored;
}

export interface Scored {
  start: number;
  parts: ScoreParts;
  levels: LineMatch[];
  alignment: (number | null)[];
  valid: boolean;
}

/**
 * Which file line each old-side line is compared with. Besides the plain one-to-one placement,
 * a hunk may hold one line the file lacks (`skipPatchLine`, a line the model invented) or lack
 * one line the file has (`skipFileLineBefore`, a line the model left out of its context).
 */
export type Shape =
  { kind: 'straight' } | { kind: 'skipPatchLine'; at: number } | { kind: 'skipFileLineBefore'; at: number };

/** The file line old-side line `index` is compared with, or null for a line the hunk made up. */
function fileLineFor(shape: Shape, start: number, index: number): number | null {
  if (shape.kind === 'skipPatchLine')
    return index < shape.at ? start + index : index === shape.at ? null : start + index - 1;
  if (shape.kind === 'skipFileLineBefore') return index < shape.at ? start + index : start + index + 1;
  return start + index;
}

/** The inverse of fileLineFor: where a match starts if old-side line `index` is file line `line`. */
function startFor(shape: Shape, index: number, line: number): number | null {
  if (shape.kind === 'skipPatchLine')
    return index < shape.at ? line - index : index === shape.at ? null : line - index + 1;
  if (shape.kind === 'skipFileLineBefore') return index < shape.at ? line - index : line - index - 1;
  return line - index;
}

function spanOf(shape: Shape, length: number): number {
  return shape.kind === 'skipPatchLine' ? length - 1 : shape.kind === 'skipFileLineBefore' ? length + 1 : length;
}

/**
 * compareLines of old-side line `index` with a file line, computed once per pair: the shapes of the
 * gap rung compare the same pairs again at shifted starts, and on a file with many look-alike
 * places the edit distances behind `near` were most of the time a hunk took.
 */
export class Comparisons {
  private readonly memo = new Map<number, LineMatch>();
  constructor(
    private readonly file: FileView,
    private readonly expected: readonly LineForms[],
  ) {}

  level(index: number, line: number): LineMatch {
    const key = index * (this.file.lines.length + 1) + line;
    let level = this.memo.get(key);
    if (level === undefined) {
      level = compareLines(this.expected[index]!, this.file.forms(line));
      this.memo.set(key, level);
    }
    return level;
  }
}

/**
 * Scores one placement. Places that cannot reach the gate are dropped before any edit distance is
 * computed (a line can only be near when its identifiers agree); with `onlyValid`, so are places
 * where a removed or anchored line does not match.
 */
function scoreAt(
  file: FileView,
  expected: readonly LineForms[],
  comparisons: Comparisons,
  anchored: Set<number>,
  start: number,
  shape: Shape,
  onlyValid: boolean,
): Scored | null {
  // A skipped line counts as one that does not match, so a shaped match never scores 1.0.
  const lines = expected.length + (shape.kind === 'skipFileLineBefore' ? 1 : 0);
  const squeezed = file.squeezed;
  let looseCount = 0;
  let maybeNear = 0;
  for (let index = 0; index < expected.length; index++) {
    const line = fileLineFor(shape, start, index);
    if (line === null) {
      if (onlyValid && anchored.has(index)) return null;
    } else if (squeezed[line] === expected[index]!.squeezed) {
      looseCount++;
    } else if (onlyValid && anchored.has(index)) {
      return null;
    } else if (file.forms(line).identifiers === expected[index]!.identifiers) {
      maybeNear++;
    }
  }
  const reachable = (looseCount + 0.5 * maybeNear) / lines;
  if (reachable < FUZZY_GATE || looseCount < Math.min(2, expected.length)) return null;
  const parts: ScoreParts = { score: 0, exact: 0, loose: 0, near: 0, mismatch: lines - expected.length, lines };
  const levels: LineMatch[] = [];
  const alignment: (number | null)[] = [];
  let valid = true;
  let weighted = 0;
  for (let index = 0; index < expected.length; index++) {
    const line = fileLineFor(shape, start, index);
    alignment.push(line);
    const level = line === null ? 'mismatch' : comparisons.level(index, line);
    levels.push(level);
    parts[level]++;
    weighted += MATCH_WEIGHT[level];
    if (anchored.has(index) && (level === 'near' || level === 'mismatch')) valid = false;
  }
  parts.score = weighted / lines;
  return { start, parts, levels, alignment, valid: valid && parts.score >= FUZZY_GATE };
}

/** Scores every place that shares at least two whitespace-equal lines with the hunk; others cannot pass the gate. */
export function scoreEverywhere(
  request: { file: FileView; minStart: number },
  expected: readonly LineForms[],
  comparisons: Comparisons,
  anchored: Set<number>,
  shapes: readonly Shape[],
  onlyValid: boolean,
): Scored[] {
  const { file, minStart } = request;
  const scored: Scored[] = [];
  for (const shape of shapes) {
    const span = spanOf(shape, expected.length);
    const shared = new Map<number, number>();
    expected.forEach((line, index) => {
      for (const position of file.positions.get(line.squeezed) ?? []) {
        const start = startFor(shape, index, position);
        if (start !== null) shared.set(start, (shared.get(start) ?? 0) + 1);
      }
    });
    const starts = [...shared.entries()]
      .filter(
        ([start, count]) =>
          count >= Math.min(2, expected.length) && start >= minStart && start + span <= file.lines.length,
      )
      .map(([start]) => start)
      .sort((a, b) => a - b);
    for (const start of starts) {
      const result = scoreAt(file, expected, comparisons, anchored, start, shape, onlyValid);
      if (result !== null) scored.push(result);
    }
  }
  return scored;
}

/** Interior places where a line may be missing on one side; never a removed or anchored line. */
export function gapShapes(expected: readonly string[], anchored: Set<number>): Shape[] {
  const shapes: Shape[] = [];
  for (let at = 1; at < expected.length - 1; at++) if (!anchored.has(at)) shapes.push({ kind: 'skipPatchLine', at });
  for (let at = 1; at < expected.length; at++) shapes.push({ kind: 'skipFileLineBefore', at });
  return shapes;
}
