// Line comparison levels the applier scores with.

export type LineMatch = 'exact' | 'loose' | 'near' | 'mismatch';

/** Weights of a placement's score; a hunk whose lines all match exactly scores 1.0. */
export const MATCH_WEIGHT: Record<LineMatch, number> = { exact: 1, loose: 0.9, near: 0.5, mismatch: 0 };

/** Whitespace carries no meaning in C for matching purposes: indentation, trailing blanks, spacing. */
export function squeeze(line: string): string {
  return line.replace(/\s+/g, '');
}

const NEAR_SIMILARITY = 0.7;

/**
 * Compares a patch line with a file line; `squeezed*` are squeeze() of each, passed in to avoid
 * recomputing. A line only counts as near when it names the same identifiers in the same order:
 * `x3[i] = y3[i]` and `x17[i] = y17[i]` are similar text but different statements, and treating
 * them as near would pull a hunk towards a look-alike loop elsewhere in the file.
 */
export function compareLines(patch: LineForms, file: LineForms): LineMatch {
  if (patch.text === file.text) return 'exact';
  if (patch.squeezed === file.squeezed) return 'loose';
  if (patch.identifiers !== file.identifiers) return 'mismatch';
  return similarity(patch.squeezed, file.squeezed) >= NEAR_SIMILARITY ? 'near' : 'mismatch';
}

/** A line with the forms the comparison needs, computed once per line. */
export interface LineForms {
  text: string;
  squeezed: string;
  identifiers: string;
}

export function lineForms(text: string): LineForms {
  return { text, squeezed: squeeze(text), identifiers: identifiers(text) };
}

export function identifiers(line: string): string {
  return (line.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []).join(' ');
}

/** 1 − normalised Levenshtein distance; 0 for texts whose lengths alone rule out similarity. */
export function similarity(a: string, b: string): number {
  const longest = Math.max(a.length, b.length);
  if (longest === 0) return 1;
  if (Math.min(a.length, b.length) / longest < NEAR_SIMILARITY) return 0;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  let current = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min(substitution, previous[j]! + 1, current[j - 1]! + 1);
    }
    [previous, current] = [current, previous];
  }
  return 1 - previous[b.length]! / longest;
}
