// Aligns a changed file with its original line by line (jsdiff's Myers diff), so that statements
// can be identified by their original line across patches.
import { diffArrays } from 'diff';

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
      // A removal followed by an addition is an edit in place: pair the lines up in order.
      replacedBy.forEach((text, offset) => lines.push({ text, original: offset < change.count ? oldIndex + offset : null, changed: true }));
      removed += Math.max(0, change.count - replacedBy.length);
      oldIndex += change.count;
      if (next?.added) index++;
      continue;
    }
    for (const text of change.value) lines.push({ text, original: null, changed: true });
  }
  return { lines, removed };
}
