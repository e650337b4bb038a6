// Turns apply reports into text for the model's next turn: what failed, where the best
// candidate was, what the file really has there, and which lines to re-read.
import type { FileApplyReport, HunkReport } from './model.js';

const SHOWN_LINES = 12;

export function renderApplyFailure(reports: readonly FileApplyReport[]): string {
  const out: string[] = [];
  for (const report of reports) {
    const name = report.path ?? `file ${report.fileId ?? '?'}`;
    if (report.alreadyApplied) {
      out.push(`${name}: every hunk's change is already in the file, so the patch changes nothing there.`);
      continue;
    }
    if (report.ok) continue;
    out.push(`${name}: the patch does not apply (nothing was changed; all hunks must apply).`);
    for (const hunk of report.hunks) out.push(...renderHunk(hunk, name));
  }
  return out.join('\n');
}

function renderHunk(hunk: HunkReport, name: string): string[] {
  const label = `  hunk ${hunk.index} (${hunk.header.trim()})`;
  switch (hunk.status) {
    case 'exact':
    case 'offset':
    case 'fuzzy':
      return [`${label}: applies at line ${hunk.bestLine} — ${hunk.detail}.`];
    case 'already-applied':
      return [
        hunk.bestLine === null
          ? `${label}: ${hunk.detail}.`
          : `${label}: already applied at line ${hunk.bestLine}; it would change nothing.`,
      ];
    case 'ambiguous':
      return [
        `${label}: AMBIGUOUS — ${hunk.detail}.`,
        `    Use the exact line number in the @@ header, or add context lines that tell these places apart.`,
        ...reread(hunk, name),
      ];
    case 'failed':
      return [`${label}: FAILED — ${hunk.detail}.`, ...comparison(hunk), ...reread(hunk, name)];
  }
}

function comparison(hunk: HunkReport): string[] {
  if (hunk.found.length === 0 || (hunk.bestLine === null && hunk.declaredLine === null)) return [];
  const where = hunk.bestLine ?? hunk.declaredLine!;
  const score =
    hunk.score === null
      ? ''
      : ` (score ${hunk.score.score.toFixed(2)}: ${hunk.score.exact} exact, ${hunk.score.loose} whitespace-only, ${hunk.score.near} similar, ${hunk.score.mismatch} different of ${hunk.score.lines})`;
  const lines = [`    your hunk expects vs. the file at line ${where}${score}:`];
  const count = Math.min(SHOWN_LINES, Math.max(hunk.expected.length, hunk.found.length));
  for (let index = 0; index < count; index++) {
    const expected = hunk.expected[index];
    const actual = hunk.found[index];
    const same = expected === actual;
    lines.push(`    ${same ? ' ' : '!'} expected: ${show(expected)}`);
    if (!same) lines.push(`      file has: ${show(actual)}`);
  }
  if (count < hunk.expected.length) lines.push(`    … ${hunk.expected.length - count} more lines`);
  return lines;
}

function show(line: string | undefined): string {
  return line === undefined ? '(end of file)' : JSON.stringify(line);
}

function reread(hunk: HunkReport, name: string): string[] {
  if (hunk.reread === null) return [];
  return [`    Re-read lines ${hunk.reread.from}-${hunk.reread.to} of ${name} and copy the context lines exactly.`];
}
