// The lines of a source file a prompt shows around a patch: one function for the built-in ladder's
// `{{source_context}}` and DiscoPoP's `{original_source}`/`{patched_source}`, so both template sets
// show a model the same code for the same patch.

export type PatchSide = 'original' | 'patched';

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/gm;

/**
 * Merged 1-based inclusive line ranges: every line each hunk covers on `side` (a long hunk whole,
 * not only its start) and `contextLines` on each side of it; the whole file when the patch names
 * no place.
 */
function sourceWindows(patch: string, side: PatchSide, lineCount: number, contextLines: number): [number, number][] {
  if (lineCount === 0) return [];
  const hunks = [...patch.matchAll(HUNK_HEADER)].map((match) => {
    const start = Number(side === 'original' ? match[1] : match[3]);
    const length = (side === 'original' ? match[2] : match[4]) ?? '1';
    // A hunk of length 0 adds after `start`: the window is still around that line.
    return [start, start + Math.max(Number(length), 1) - 1] as const;
  });
  if (hunks.length === 0) return [[1, lineCount]];
  const ranges = hunks
    .map(
      ([first, last]) =>
        [Math.max(1, first - contextLines), Math.min(lineCount, last + contextLines)] as [number, number],
    )
    .filter(([from, to]) => from <= to)
    .sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [from, to] of ranges) {
    const last = merged.at(-1);
    if (last && from <= last[1] + 1) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  return merged;
}

/** A source's lines, without the empty string after its final newline. */
function sourceLines(source: string): string[] {
  const lines = source.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** Each window's lines numbered like the file (the number right-aligned to the file's widest). */
export function numberedWindows(
  source: string,
  patch: string,
  side: PatchSide,
  contextLines: number,
): { from: number; to: number; text: string; width: number }[] {
  const lines = sourceLines(source);
  const width = String(lines.length).length;
  return sourceWindows(patch, side, lines.length, contextLines).map(([from, to]) => ({
    from,
    to,
    width,
    text: lines
      .slice(from - 1, to)
      .map((line, index) => `${String(from + index).padStart(width)}  ${line}`)
      .join('\n'),
  }));
}
