// The built-in repairer's answer for one file: a unified diff from the original source to the
// repaired one, under the generated patch's own two header lines, so it reads (and is checked)
// like any model's answer.
import { formatPatch, OMIT_HEADERS, structuredPatch } from 'diff';

export type HeaderLines = { ok: true; oldLine: string; newLine: string } | { ok: false; reason: string };

export function generatedHeaderLines(generatedPatch: string): HeaderLines {
  const lines = generatedPatch.split('\n');
  const oldIndex = lines.findIndex((line) => line.startsWith('--- '));
  const newLine = oldIndex >= 0 ? lines[oldIndex + 1] : undefined;
  if (oldIndex < 0 || newLine === undefined || !newLine.startsWith('+++ ')) {
    return { ok: false, reason: 'the generated patch has no ---/+++ header' };
  }
  return { ok: true, oldLine: lines[oldIndex]!, newLine };
}

export function fileDiff(o: {
  headers: { oldLine: string; newLine: string };
  original: string;
  repaired: string;
}): string {
  const patch = structuredPatch('a', 'b', o.original, o.repaired, undefined, undefined, { context: 3 });
  return `${o.headers.oldLine}\n${o.headers.newLine}\n${formatPatch(patch, OMIT_HEADERS)}`;
}
