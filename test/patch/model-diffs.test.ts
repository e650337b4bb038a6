// Diffs written the way small models write them, each reproducing a slip seen in the llm-patch
// benchmark's model answers (fixtures/model-diffs/<slip>/: the file the model was asked to fix and
// its answer), applied as that benchmark applies them: every hunk to before.<ext>, all or nothing.
// The benchmark's own 1,200 diffs are measured from outside: `npm run bench -- patch-real --dataset DIR`.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyFilePatch } from '../../src/patch/apply.js';
import { parsePatches } from '../../src/patch/parse.js';

const ROOT = join(import.meta.dirname, '..', '..', 'fixtures', 'model-diffs');

/** The benchmark's harness reads with Python's universal newlines. */
function read(path: string): string {
  return readFileSync(path, 'utf8').replace(/\r\n?/g, '\n');
}

function slip(folder: string) {
  const beforeFile = readdirSync(join(ROOT, folder)).find((name) => name.startsWith('before.'))!;
  const before = read(join(ROOT, folder, beforeFile));
  const parsed = parsePatches(read(join(ROOT, folder, 'answer.diff')));
  const hunks = parsed.patches.flatMap((patch) => patch.hunks);
  return { before, parsed, hunks, report: applyFilePatch(before, { oldPath: null, newPath: null, hunks }) };
}

/** before with whole lines replaced (1-based line → new lines), the way a reader would edit it by hand. */
function edited(before: string, edits: Record<number, string[]>): string {
  const lines = before.split('\n');
  for (const line of Object.keys(edits)
    .map(Number)
    .sort((a, b) => b - a))
    lines.splice(line - 1, 1, ...edits[line]!);
  return lines.join('\n');
}

describe('diffs with the slips models make', () => {
  it('takes a hunk that fits one start in two shapes (a made-up blank line) as one place, not an ambiguity', () => {
    const { before, report } = slip('made-up-blank-line');
    expect(before.split('\n')[2]).toBe('#include <string.h>');
    expect(before.split('\n')[30]).toBe('int main() {');
    expect(report.hunks.map((hunk) => hunk.status)).toEqual(['fuzzy', 'offset']);
    expect(report.result).toBe(
      edited(before, {
        3: ['#include <string.h>', '#include <ctype.h>  // for isdigit in the row reader'],
        31: ['int main(void) {  // no arguments are read'],
      }),
    );
  });

  it('reads a `@@(48,5)-(49,6)` (line,column) header: line 48 is a hint, the body is the hunk', () => {
    const { before, parsed, report } = slip('line-column-header');
    expect(parsed.patches[0]!.hunks[0]).toMatchObject({ oldStart: 48, lines: [{ kind: 'remove' }, { kind: 'add' }] });
    expect(before.split('\n')[11]).toBe("        parts.push({ kind: 'quantity', text: match[0] });");
    expect(report.result).toBe(
      edited(before, { 12: ["        parts.push({ kind: 'quantity', text: match[0].trim() });"] }),
    );
  });

  it('refuses an insertion whose only place is a (line,column) range: it names a line, not a gap', () => {
    const { report } = slip('line-column-insertion');
    expect(report.ok).toBe(false);
    expect(report.hunks[0]).toMatchObject({
      status: 'failed',
      detail: 'has no context lines and no usable line number',
    });
  });

  it('reads `@@ -1,50 + 1,50 @@` (a space after +); its one change is already in the file, which is no failure', () => {
    const { before, parsed, report } = slip('spaced-header');
    expect(parsed.problems).not.toContain('no unified diff hunk (`@@ ... @@`) found');
    expect(parsed.patches[0]!.hunks[0]).toMatchObject({
      oldStart: 1,
      lines: [{ kind: 'remove' }, { kind: 'add', text: before.split('\n')[0] }, { kind: 'remove', text: '' }],
    });
    expect(report).toMatchObject({ ok: false, alreadyApplied: true });
    expect(report.hunks[0]).toMatchObject({ status: 'already-applied', bestLine: 1 });
  });

  it('applies a diff whose last hunks remove and re-add the same lines: those change nothing and fail nothing', () => {
    const { before, report } = slip('no-op-hunks');
    expect(report.hunks.slice(4).map((hunk) => [hunk.status, hunk.detail])).toEqual(
      Array(3).fill(['already-applied', 'changes nothing (its old and new sides are the same lines)']),
    );
    expect(report.result).toBe(
      edited(before, {
        1: ['import java.util.*;', 'import Inventory.Item;'],
        10: ['    private static class Shelf implements Item {'],
        33: ['        private Item parseLine(String line) implements Item {'],
        43: ['    private static class Report implements Item {'],
      }),
    );
  });

  it("places a hunk whose context was written from memory by its removed line, keeping the file's lines and indentation", () => {
    const { before, report } = slip('context-from-memory');
    expect(report.hunks[0]!.detail).toContain('matches by its removed lines, its context from memory');
    expect(report.hunks[0]!.detail).toContain('3 context lines of the hunk not in the file: ignored');
    expect(report.result).toBe(
      edited(before, {
        17: ['        Smoother smoother = new MovingAverage(history); // window of the last five readings'],
      }),
    );
  });

  it('never lands a hunk on a copy of its removed line when its context matches elsewhere, where that line is not', () => {
    const { before, report } = slip('removed-line-elsewhere');
    const lines = before.split('\n');
    // The removed line is at 24 and 29; the hunk's context is the NEST branch at 31-37, already changed.
    expect([lines[23], lines[28], lines[33]].map((line) => line!.trim())).toEqual([
      'buf = malloc(sizeof(double));',
      'buf = malloc(sizeof(double));',
      'buf = malloc(sizeof(void*));',
    ]);
    expect(report.result).toBeNull();
    expect(report.hunks[1]).toMatchObject({ status: 'failed', bestLine: 31 });
  });

  it("offers the model's fix written into a context line of a hunk that changes nothing as a second reading, keeping the file's line in the first", () => {
    const { before, report } = slip('fix-in-context-line');
    expect(before.split('\n')[30]).toBe('        self values = read_lines(lines)');
    expect(report).toMatchObject({ ok: false, alreadyApplied: true, result: null });
    expect(report.hunks[0]!.detail).toBe(
      "changes nothing (its old and new sides are the same lines); it fits at line 30 but context line 31 differs from the file: kept the file's, its own offered as a second reading",
    );
    expect(report.hunkContextResult).toBe(edited(before, { 31: ['        self.values = read_lines(lines)'] }));
  });

  it("offers no second reading where every context line is the file's", () => {
    for (const folder of ['no-op-hunks', 'line-column-header', 'context-from-memory']) {
      const { report } = slip(folder);
      expect(report.ok).toBe(true);
      expect(report.hunkContextResult).toBeNull();
    }
  });

  it('refuses at once a hunk far longer than the file instead of searching it', () => {
    const { before, hunks, report } = slip('runaway-hunk');
    const oldLines = hunks[0]!.lines.filter((line) => line.kind !== 'add').length;
    const fileLines = before.replace(/\n$/, '').split('\n').length;
    expect(report.hunks[0]).toMatchObject({
      status: 'failed',
      detail: `its old side has ${oldLines} lines, the file only ${fileLines}`,
    });
  });
});
