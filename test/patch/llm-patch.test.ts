// Diffs real models wrote (fixtures/llm-patch, from the llm-patch benchmark), applied the way the
// benchmark applies them: every hunk to before.<ext>, all of them or nothing.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyFilePatch } from '../../src/patch/apply.js';
import { parsePatches } from '../../src/patch/parse.js';

const ROOT = join(import.meta.dirname, '..', '..', 'fixtures', 'llm-patch');

/** The benchmark's harness reads with Python's universal newlines. */
function read(path: string): string {
  return readFileSync(path, 'utf8').replace(/\r\n?/g, '\n');
}

function benchmarkCase(folder: string, diff: string) {
  const extension =
    folder.split('-')[0] === 'python' ? 'py' : folder.startsWith('typescript') ? 'ts' : folder.split('-')[0]!;
  const before = read(join(ROOT, folder, `before.${extension}`));
  const parsed = parsePatches(read(join(ROOT, folder, diff)));
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

describe('diffs from the llm-patch benchmark', () => {
  it('takes a hunk that fits one start in two shapes (a made-up blank line) as one place, not an ambiguity', () => {
    const { before, report } = benchmarkCase('c-llama3.2_3b-0febc9ed', 'qwen2.5-coder_7b.diff');
    expect(before.split('\n')[2]).toBe('#include <string.h>');
    expect(before.split('\n')[160]).toBe('int main() {');
    expect(report.hunks.map((hunk) => hunk.status)).toEqual(['fuzzy', 'offset']);
    expect(report.result).toBe(
      edited(before, {
        3: ['#include <string.h>', '#include <ctype.h>  // Added to include ctype.h for isdigit and strdup functions'],
        161: ["int main(void) {  // Changed return type to void as it's not returning anything"],
      }),
    );
  });

  it('reads a `@@(74,3)-(75,4)` (line,column) header: line 74 is a hint, the body is the hunk', () => {
    const { before, parsed, report } = benchmarkCase('typescript-qwen2.5-coder_7b-8393dc0b', 'llama3.2_3b.diff');
    expect(parsed.patches[0]!.hunks[0]).toMatchObject({ oldStart: 74, lines: [{ kind: 'remove' }, { kind: 'add' }] });
    expect(before.split('\n')[30]).toBe("        tokens.push({ type: 'number', value: match[0] });");
    expect(report.result).toBe(edited(before, { 31: ['        tokens.push(parseInt(match[0], 10));'] }));
  });

  it('refuses an insertion whose only place is a (line,column) range: it names a line, not a gap', () => {
    const { report } = benchmarkCase('typescript-qwen2.5-coder_7b-61b5b2b5', 'llama3.2_3b.diff');
    expect(report.ok).toBe(false);
    expect(report.hunks[0]).toMatchObject({
      status: 'failed',
      detail: 'has no context lines and no usable line number',
    });
  });

  it('reads `@@ -1,50 + 1,50 @@` (a space after +); its one change is already in the file, which is no failure', () => {
    const { before, parsed, report } = benchmarkCase('c-phi3_mini-baadb254', 'llama3.2_3b.diff');
    expect(parsed.problems).not.toContain('no unified diff hunk (`@@ ... @@`) found');
    expect(parsed.patches[0]!.hunks[0]).toMatchObject({
      oldStart: 1,
      lines: [{ kind: 'remove' }, { kind: 'add', text: before.split('\n')[0] }, { kind: 'remove', text: '' }],
    });
    expect(report).toMatchObject({ ok: false, alreadyApplied: true });
    expect(report.hunks[0]).toMatchObject({ status: 'already-applied', bestLine: 1 });
  });

  it('applies a diff whose last hunks remove and re-add the same lines: those change nothing and fail nothing', () => {
    const { before, report } = benchmarkCase('java-llama3.2_3b-640f7326', 'qwen2.5-coder_7b.diff');
    expect(report.hunks.slice(4).map((hunk) => [hunk.status, hunk.detail])).toEqual(
      Array(3).fill(['already-applied', 'changes nothing (its old and new sides are the same lines)']),
    );
    expect(report.result).toBe(
      edited(before, {
        1: ['import java.util.*;', 'import ExpressionEvaluator.Expression;'],
        50: ['    private static class Parser implements Expression {'],
        100: ['        private Expression parseFactor(int index) implements Expression {'],
        119: ['    private static class Evaluator implements Expression {'],
      }),
    );
  });

  it("places a hunk whose context was written from memory by its removed line, keeping the file's lines and indentation", () => {
    const { before, report } = benchmarkCase('java-phi3_mini-8647bea7', 'llama3.2_3b.diff');
    expect(report.hunks[0]!.detail).toContain('matches by its removed lines, its context from memory');
    expect(report.hunks[0]!.detail).toContain('3 context lines of the hunk not in the file: ignored');
    expect(report.result).toBe(
      edited(before, {
        25: ['        Parser parser = new SimpleInfixParser(tokenizer); // added parentheses around class name'],
      }),
    );
  });

  it('never lands a hunk on a copy of its removed line when its context matches elsewhere, where that line is not', () => {
    const { before, report } = benchmarkCase('c-llama3.2_3b-9e1e29af', 'qwen2.5-coder_7b.diff');
    const lines = before.split('\n');
    // The removed line is at 108 and 119; the hunk's context is the LPAREN branch at 121-125, already changed.
    expect([lines[107], lines[118], lines[123]].map((line) => line!.trim())).toEqual([
      'output = malloc(sizeof(double));',
      'output = malloc(sizeof(double));',
      'output = malloc(sizeof(void*));',
    ]);
    expect(report.result).toBeNull();
    expect(report.hunks[1]).toMatchObject({ status: 'failed', bestLine: 121 });
  });

  it("offers the model's fix written into a context line of a hunk that changes nothing as a second reading, keeping the file's line in the first", () => {
    const { before, report } = benchmarkCase('python-llama3.2_3b-131224e2', 'qwen2.5-coder_7b.diff');
    expect(before.split('\n')[33]).toBe("        self precedence = {'+': 1, '-': 1, '*': 2, '/': 2}");
    expect(report).toMatchObject({ ok: false, alreadyApplied: true, result: null });
    expect(report.hunks[0]!.detail).toBe(
      "changes nothing (its old and new sides are the same lines); it fits at line 33 but context line 34 differs from the file: kept the file's, its own offered as a second reading",
    );
    expect(report.hunkContextResult).toBe(
      edited(before, { 34: ["        self.precedence = {'+': 1, '-': 1, '*': 2, '/': 2}"] }),
    );
  });

  it("offers no second reading where every context line is the file's", () => {
    for (const [folder, diff] of [
      ['java-llama3.2_3b-640f7326', 'qwen2.5-coder_7b.diff'],
      ['typescript-qwen2.5-coder_7b-8393dc0b', 'llama3.2_3b.diff'],
      ['java-phi3_mini-8647bea7', 'llama3.2_3b.diff'],
    ] as const) {
      const { report } = benchmarkCase(folder, diff);
      expect(report.ok).toBe(true);
      expect(report.hunkContextResult).toBeNull();
    }
  });

  it('refuses at once a hunk far longer than the file instead of searching it', () => {
    const { before, hunks, report } = benchmarkCase('typescript-qwen2.5-coder_7b-3de7d6f3', 'llama3.2_3b.diff');
    const oldLines = hunks[0]!.lines.filter((line) => line.kind !== 'add').length;
    const fileLines = before.replace(/\n$/, '').split('\n').length;
    expect(report.hunks[0]).toMatchObject({
      status: 'failed',
      detail: `its old side has ${oldLines} lines, the file only ${fileLines}`,
    });
  });
});
