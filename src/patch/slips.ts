// Slips real models make inside otherwise valid diffs, read as they were meant. The file decides
// where a line could be read either way, so a diff that means what it says is left alone.
import type { FilePatch, HunkLine } from './model.js';

/**
 * A doubled prefix: `--<line>` for a context line of the file, `+-<line>` for an added one. A
 * `--` line is read as context only when the file has `<line>` and not `-<line>`; a `+-` line
 * loses its `-` when what follows is indentation or a preprocessor line, which no C statement
 * starting with a minus is.
 */
export function undoubledPrefixes(patch: FilePatch, fileLines: ReadonlySet<string>): FilePatch {
  const fix = (line: HunkLine): HunkLine => {
    if (!line.text.startsWith('-')) return line;
    const rest = line.text.slice(1);
    if (line.kind === 'remove' && !fileLines.has(line.text.trim()) && fileLines.has(rest.trim()))
      return { kind: 'context', text: rest };
    if (line.kind === 'add' && /^[\s#]/.test(rest)) return { kind: 'add', text: rest };
    return line;
  };
  return { ...patch, hunks: patch.hunks.map((hunk) => ({ ...hunk, lines: hunk.lines.map(fix) })) };
}

/** The trimmed lines of the texts a block may be written against, for undoubledPrefixes. */
export function trimmedLines(...texts: (string | undefined)[]): Set<string> {
  return new Set(texts.flatMap((text) => (text === undefined ? [] : text.split('\n').map((line) => line.trim()))));
}
