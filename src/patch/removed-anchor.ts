// The last rung of the ladder: a hunk whose context the model rewrote from memory is placed by its
// removed lines, which must all be in the file (whitespace aside). Its context then only aligns
// and ranks: context lines that match keep their file line, the others stand for nothing and the
// file's lines stay, and the score ranks places against each other (locate.ts's pick) without a
// minimum. An added line must sit next to a removed or matching line, or it has no place.
import type { FileView } from './file-view.js';
import type { Hunk, ScoreParts } from './model.js';
import { compareLines, MATCH_WEIGHT, type LineForms, type LineMatch } from './similarity.js';

/** Removed text shorter than this (`}`, `);`) is found everywhere and says nothing about the place. */
const MIN_REMOVED_CHARACTERS = 4;

export interface RemovedPlacement {
  start: number;
  /** Where the hunk's first old-side line would be, counted straight from its first removed line. */
  nominalStart: number;
  parts: ScoreParts;
  levels: LineMatch[];
  alignment: (number | null)[];
}

interface Group {
  /** Old-side index of the group's first removed line. */
  at: number;
  squeezed: string[];
}

function removedGroups(hunk: Hunk, expected: readonly LineForms[]): Group[] {
  const groups: Group[] = [];
  let oldIndex = 0;
  let previousRemoved = false;
  for (const line of hunk.lines) {
    if (line.kind === 'add') continue;
    if (line.kind === 'remove') {
      if (previousRemoved) groups[groups.length - 1]!.squeezed.push(expected[oldIndex]!.squeezed);
      else groups.push({ at: oldIndex, squeezed: [expected[oldIndex]!.squeezed] });
    }
    previousRemoved = line.kind === 'remove';
    oldIndex++;
  }
  return groups;
}

function groupAt(file: FileView, group: Group, line: number): boolean {
  return group.squeezed.every((text, offset) => file.squeezed[line + offset] === text);
}

/** How far a later group may sit from where the first one puts it: a few lines, more across a long gap. */
function slackFor(gap: number): number {
  return 3 + Math.floor(gap / 4);
}

/** Every way to find all removed groups in order, as the file line of each group's first line. */
function groupPlacements(file: FileView, groups: readonly Group[]): number[][] {
  const first = groups[0]!;
  const placements: number[][] = [];
  for (const position of file.positions.get(first.squeezed[0]!) ?? []) {
    if (!groupAt(file, first, position)) continue;
    const lines = [position];
    for (let index = 1; index < groups.length; index++) {
      const previous = groups[index - 1]!;
      const group = groups[index]!;
      const earliest = lines[index - 1]! + previous.squeezed.length;
      const wanted = lines[index - 1]! + (group.at - previous.at);
      const slack = slackFor(group.at - previous.at);
      let placed: number | null = null;
      for (let distance = 0; distance <= slack && placed === null; distance++) {
        for (const line of distance === 0 ? [wanted] : [wanted - distance, wanted + distance]) {
          if (line >= earliest && groupAt(file, group, line)) {
            placed = line;
            break;
          }
        }
      }
      if (placed === null) break;
      lines.push(placed);
    }
    if (lines.length === groups.length) placements.push(lines);
  }
  return placements;
}

/**
 * Places the hunk at every spot where all its removed lines are, scored like any fuzzy match;
 * null when its removed lines say too little, or are not all in the file.
 */
export function placeByRemovedLines(
  file: FileView,
  hunk: Hunk,
  expected: readonly LineForms[],
  anchored: ReadonlySet<number>,
  minStart: number,
): RemovedPlacement[] | null {
  const groups = removedGroups(hunk, expected);
  if (groups.length === 0) return null;
  const removedCharacters = groups.reduce((sum, group) => sum + group.squeezed.join('').length, 0);
  if (removedCharacters < MIN_REMOVED_CHARACTERS) return null;
  const results: RemovedPlacement[] = [];
  for (const lines of groupPlacements(file, groups)) {
    const placement = alignAround(file, hunk, expected, groups, lines, anchored, minStart);
    if (placement !== null) results.push(placement);
  }
  return results;
}

function alignAround(
  file: FileView,
  hunk: Hunk,
  expected: readonly LineForms[],
  groups: readonly Group[],
  groupLines: readonly number[],
  anchored: ReadonlySet<number>,
  minStart: number,
): RemovedPlacement | null {
  if (groupLines[0]! < minStart) return null;
  const removedLine = new Map<number, number>();
  groups.forEach((group, index) =>
    group.squeezed.forEach((_, offset) => removedLine.set(group.at + offset, groupLines[index]! + offset)),
  );
  const alignment: (number | null)[] = [];
  const levels: LineMatch[] = [];
  let previous = -1;
  for (let index = 0; index < expected.length; index++) {
    const removed = removedLine.get(index);
    if (removed !== undefined) {
      alignment.push(removed);
      levels.push(compareLines(expected[index]!, file.forms(removed)));
      previous = removed;
      continue;
    }
    const line = contextLine(groups, groupLines, index);
    const nextRemoved = nextRemovedLine(removedLine, index);
    const fits =
      line > previous && line >= minStart && line < file.lines.length && (nextRemoved === null || line < nextRemoved);
    const level = fits ? compareLines(expected[index]!, file.forms(line)) : 'mismatch';
    if (level === 'mismatch') {
      if (anchored.has(index)) return null;
      alignment.push(null);
      levels.push('mismatch');
      continue;
    }
    if (anchored.has(index) && level === 'near') return null;
    alignment.push(line);
    levels.push(level);
    previous = line;
  }
  if (!everyAdditionHasANeighbour(hunk, alignment)) return null;
  const parts: ScoreParts = { score: 0, exact: 0, loose: 0, near: 0, mismatch: 0, lines: expected.length };
  for (const level of levels) parts[level]++;
  parts.score = levels.reduce((sum, level) => sum + MATCH_WEIGHT[level], 0) / expected.length;
  const start = alignment.find((line): line is number => line !== null)!;
  return { start, nominalStart: groupLines[0]! - groups[0]!.at, parts, levels, alignment };
}

/** A context line is placed straight from the nearest removed group (by old-side distance). */
function contextLine(groups: readonly Group[], groupLines: readonly number[], index: number): number {
  let best = 0;
  let bestDistance = Infinity;
  groups.forEach((group, which) => {
    const end = group.at + group.squeezed.length - 1;
    const distance = index < group.at ? group.at - index : index - end;
    if (distance < bestDistance) {
      bestDistance = distance;
      best = which;
    }
  });
  return groupLines[best]! + (index - groups[best]!.at);
}

function nextRemovedLine(removedLine: ReadonlyMap<number, number>, index: number): number | null {
  let next: number | null = null;
  for (const [oldIndex, line] of removedLine) if (oldIndex > index && (next === null || line < next)) next = line;
  return next;
}

/** Added lines go beside the old line after them, or else the one before; one of them must be placed. */
function everyAdditionHasANeighbour(hunk: Hunk, alignment: readonly (number | null)[]): boolean {
  let oldIndex = 0;
  let previousPlaced = false;
  let pendingAddition = false;
  for (const line of hunk.lines) {
    if (line.kind === 'add') {
      pendingAddition = true;
      continue;
    }
    const placed = alignment[oldIndex++] !== null;
    if (pendingAddition && !placed && !previousPlaced) return false;
    pendingAddition = false;
    previousPlaced = placed;
  }
  return !pendingAddition || previousPlaced;
}
