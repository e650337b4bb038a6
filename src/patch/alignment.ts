// Aligns a changed file with its original line by line (jsdiff's Myers diff), so that statements
// can be identified by their original line across patches.
import { diffArrays } from 'diff';
import { isOmpPragma } from './openmp.js';
import { similarity, squeeze } from './similarity.js';

export interface AlignedLine {
  text: string;
  /** 0-based original line this line is (unchanged) or replaced (changed in place); null if inserted. */
  original: number | null;
  changed: boolean;
}

export interface Alignment {
  lines: AlignedLine[];
  /** Original lines that no longer exist. */
  removed: number;
}

export function splitLines(text: string): string[] {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

export function align(original: string, changed: string): Alignment {
  const changes = diffArrays(splitLines(original), splitLines(changed));
  const lines: AlignedLine[] = [];
  let removed = 0;
  let oldIndex = 0;
  for (let index = 0; index < changes.length; index++) {
    const change = changes[index]!;
    if (!change.added && !change.removed) {
      for (const text of change.value) lines.push({ text, original: oldIndex++, changed: false });
      continue;
    }
    if (change.removed) {
      const next = changes[index + 1];
      const replacedBy = next?.added ? next.value : [];
      const pairs = pairReplacedLines(change.value, replacedBy);
      replacedBy.forEach((text, offset) => {
        const paired = pairs.get(offset);
        lines.push({ text, original: paired === undefined ? null : oldIndex + paired, changed: true });
      });
      removed += change.count - pairs.size;
      oldIndex += change.count;
      if (next?.added) index++;
      continue;
    }
    for (const text of change.value) lines.push({ text, original: null, changed: true });
  }
  return { lines, removed };
}

/** Replaced blocks larger than this (removed × added lines) are paired in order. */
const MAX_PAIRING_CELLS = 64 * 64;

/** Below this, two lines are not the same statement edited: `if (n > 1) {` does not replace a `for` header. */
const EDITED_SIMILARITY = 0.5;

/**
 * Which removed line each added line of a replaced block edits (added offset → removed offset), in
 * order, maximising the summed similarity. A rewritten loop header pairs with the header it
 * replaces even when a directive or a guard was inserted before it; a directive pairs only with a
 * directive.
 */
function pairReplacedLines(removed: readonly string[], added: readonly string[]): Map<number, number> {
  // A rewrite of a whole region is not worth a quadratic search: its lines pair in order.
  if (removed.length * added.length > MAX_PAIRING_CELLS) {
    return new Map(added.slice(0, removed.length).map((_, offset) => [offset, offset]));
  }
  const score = (r: number, a: number): number => {
    const before = removed[r]!;
    const after = added[a]!;
    if (isOmpPragma(before) !== isOmpPragma(after)) return 0;
    const value = similarity(squeeze(before), squeeze(after));
    return value >= EDITED_SIMILARITY ? value : sameLeadingWord(before, after) ? EDITED_SIMILARITY : 0;
  };
  // best[r][a]: the best total for removed[r..] against added[a..].
  const best = Array.from({ length: removed.length + 1 }, () => new Array<number>(added.length + 1).fill(0));
  for (let r = removed.length - 1; r >= 0; r--) {
    for (let a = added.length - 1; a >= 0; a--) {
      const paired = score(r, a);
      best[r]![a] = Math.max(best[r + 1]![a]!, best[r]![a + 1]!, paired > 0 ? paired + best[r + 1]![a + 1]! : 0);
    }
  }
  const pairs = new Map<number, number>();
  let r = 0;
  let a = 0;
  while (r < removed.length && a < added.length) {
    const paired = score(r, a);
    if (paired > 0 && best[r]![a] === paired + best[r + 1]![a + 1]!) {
      pairs.set(a++, r++);
    } else if (best[r]![a] === best[r + 1]![a]) {
      r++;
    } else {
      a++;
    }
  }
  return pairs;
}

const LEADING_WORD = /^\s*([A-Za-z_]\w*)/;

/** Both lines start with the same keyword or name (`for … {` rewritten, say). */
function sameLeadingWord(a: string, b: string): boolean {
  const wordA = LEADING_WORD.exec(a)?.[1];
  return wordA !== undefined && wordA === LEADING_WORD.exec(b)?.[1];
}
