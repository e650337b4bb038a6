// The tolerant applier: exact placement, drift, whitespace-only and fuzzy context, V4A anchors,
// and refusal where a hunk could go to two identical places; it never misplaces a hunk.
import { describe, expect, it } from 'vitest';
import { applyFilePatch } from '../../src/patch/apply.js';
import { createPatch } from 'diff';
import { applyPatchSet } from '../../src/patch/patch-set.js';
import { checkDirectivesKept } from '../../src/patch/directives.js';
import { parsePatches } from '../../src/patch/parse.js';
import type { FilePatch } from '../../src/patch/model.js';
import { GENERATED_21, MAIN_C, MAIN_C_PATCHED, REDUCTION_PRAGMA, insertLine } from './fixtures.js';

function patchOf(text: string): FilePatch {
  const { patches } = parsePatches(text);
  expect(patches).toHaveLength(1);
  return patches[0]!;
}

function hunkText(start: number | null, lines: string[]): string {
  return [
    '--- a/src/main.c',
    '+++ b/src/main.c',
    start === null ? '@@ @@' : `@@ -${start},6 +${start},7 @@`,
    ...lines,
    '',
  ].join('\n');
}

const REDUCTION_HUNK = GENERATED_21.split('\n').slice(3, 10);

/** Two identical loops: the reduction loop of MAIN_C again, 40 lines further down. */
function twinLoops(): { source: string; first: number; second: number } {
  const loop = MAIN_C.split('\n').slice(7, 13);
  const filler = Array.from({ length: 40 }, (_, index) => `    a[${index}] = ${index};`);
  const lines = MAIN_C.split('\n');
  lines.splice(13, 0, ...filler, ...loop);
  return { source: lines.join('\n'), first: 11, second: 11 + 6 + filler.length };
}

describe('applyFilePatch', () => {
  it('applies the generated patch exactly at its declared line', () => {
    const report = applyFilePatch(MAIN_C, patchOf(GENERATED_21));
    expect(report.ok).toBe(true);
    expect(report.hunks[0]).toMatchObject({ status: 'exact', declaredLine: 8, bestLine: 8 });
    expect(report.result).toBe(MAIN_C_PATCHED);
  });

  it('finds the hunk away from a drifted line number and reports the offset', () => {
    const report = applyFilePatch(MAIN_C, patchOf(hunkText(2, REDUCTION_HUNK)));
    expect(report.hunks[0]).toMatchObject({ status: 'offset', bestLine: 8 });
    expect(report.hunks[0]!.detail).toContain('offset 6 lines');
    expect(report.result).toBe(MAIN_C_PATCHED);
  });

  it('applies with whitespace-only differences and re-indents the added lines to the file', () => {
    const reindented = REDUCTION_HUNK.map((line) => line.replace(/^([ +])    /, '$1'));
    const report = applyFilePatch(MAIN_C, patchOf(hunkText(8, reindented)));
    expect(report.hunks[0]!.status).toBe('fuzzy');
    expect(report.hunks[0]!.score).toMatchObject({ loose: 6, near: 0, mismatch: 0 });
    expect(report.result).toBe(MAIN_C_PATCHED);
  });

  it('applies fuzzily over a misremembered context line, keeping the file text, with the score parts', () => {
    const spoiled = REDUCTION_HUNK.map((line) => (line.includes('b[i] = i * 2.0') ? '         b[i] = i * 3.0;' : line));
    const report = applyFilePatch(MAIN_C, patchOf(hunkText(9, spoiled)));
    expect(report.hunks[0]).toMatchObject({
      status: 'fuzzy',
      bestLine: 8,
      score: { exact: 5, near: 1, mismatch: 0, lines: 6 },
    });
    expect(report.hunks[0]!.score!.score).toBeCloseTo((5 + 0.5) / 6);
    expect(report.result).toBe(MAIN_C_PATCHED);
  });

  it('places the directive right above its loop when the hunk left a context line out or made one up', () => {
    const leftOut = REDUCTION_HUNK.filter((line) => !line.includes('b[i] = i * 2.0'));
    expect(applyFilePatch(MAIN_C, patchOf(hunkText(8, leftOut))).result).toBe(MAIN_C_PATCHED);
    const madeUp = [...REDUCTION_HUNK.slice(0, 2), '     /* init done */', ...REDUCTION_HUNK.slice(2)];
    const report = applyFilePatch(MAIN_C, patchOf(hunkText(8, madeUp)));
    expect(report.hunks[0]).toMatchObject({ status: 'fuzzy', bestLine: 8, score: { exact: 6, mismatch: 1, lines: 7 } });
    expect(report.hunks[0]!.detail).toContain('one context line missing or extra');
    expect(report.result).toBe(MAIN_C_PATCHED);
  });

  it('refuses a hunk that matches two identical loops when the declared line is on neither', () => {
    const { source, second } = twinLoops();
    const report = applyFilePatch(source, patchOf(hunkText(second - 3 + 2, REDUCTION_HUNK)));
    expect(report.ok).toBe(false);
    expect(report.hunks[0]!.status).toBe('ambiguous');
    expect(report.hunks[0]!.candidates).toEqual([8, second - 3]);
  });

  it('takes the identical loop below a V4A anchor, which stands in for the line number', () => {
    const { source, second } = twinLoops();
    const lines = source.split('\n');
    lines.splice(second - 4, 0, 'static void second_half(void) {');
    const answer = [
      '*** Begin Patch',
      '*** Update File: src/main.c',
      '@@ static void second_half(void) {',
      ...REDUCTION_HUNK.slice(1, 6),
      '*** End Patch',
    ].join('\n');
    const report = applyFilePatch(lines.join('\n'), patchOf(answer));
    expect(report.ok).toBe(true);
    expect(report.hunks[0]).toMatchObject({ status: 'offset', bestLine: second - 1 });
    expect(report.result!.split('\n')[second]).toBe(REDUCTION_PRAGMA);
  });

  it('passes over a V4A anchor the file does not have: the hunk still locates by its lines', () => {
    const answer = [
      '*** Begin Patch',
      '*** Update File: src/main.c',
      '@@ static double dot(void)',
      ...REDUCTION_HUNK.slice(1, 6),
      '*** End Patch',
    ].join('\n');
    const report = applyFilePatch(MAIN_C, patchOf(answer));
    expect(report.ok).toBe(true);
    expect(report.result).toBe(MAIN_C_PATCHED);
  });

  it('takes a V4A anchor that differs from its file line only in whitespace, as models re-space a signature', () => {
    const { source, second } = twinLoops();
    const lines = source.split('\n');
    lines.splice(second - 4, 0, 'static void second_half(void) {');
    for (const written of ['static void second_half( void ){', '\tstatic void  second_half(void)\t{']) {
      const answer = [
        '*** Begin Patch',
        '*** Update File: src/main.c',
        `@@ ${written}`,
        ...REDUCTION_HUNK.slice(1, 6),
        '*** End Patch',
      ].join('\n');
      const report = applyFilePatch(lines.join('\n'), patchOf(answer));
      expect(report.ok, written).toBe(true);
      expect(report.result!.split('\n')[second]).toBe(REDUCTION_PRAGMA);
    }
  });

  it('takes a shortened V4A anchor that is part of exactly one line', () => {
    const { source, second } = twinLoops();
    const lines = source.split('\n');
    lines.splice(second - 4, 0, 'static void second_half(double *restrict a, double *restrict b) {');
    const answer = [
      '*** Begin Patch',
      '*** Update File: src/main.c',
      '@@ static void second_half(',
      ...REDUCTION_HUNK.slice(1, 6),
      '*** End Patch',
    ].join('\n');
    const report = applyFilePatch(lines.join('\n'), patchOf(answer));
    expect(report.ok).toBe(true);
    expect(report.result!.split('\n')[second]).toBe(REDUCTION_PRAGMA);
  });

  it('never pins a hunk below a short anchor that is part of several lines: the hunk locates by its own lines', () => {
    const helpers = [
      'static double scaled(double sum, double f) { return sum * f; }',
      'static double shifted(double sum, double d) { return sum + d; }',
    ];
    const source = `${MAIN_C}${helpers.join('\n')}\n`;
    const answer = [
      '*** Begin Patch',
      '*** Update File: src/main.c',
      '@@ double sum',
      ...REDUCTION_HUNK.slice(1, 6),
      '*** End Patch',
    ].join('\n');
    const report = applyFilePatch(source, patchOf(answer));
    expect(report.ok).toBe(true);
    expect(report.result).toBe(`${MAIN_C_PATCHED}${helpers.join('\n')}\n`);
  });

  it('fails a hunk whose anchor is part of several lines and whose lines fit two loops, saying why the anchor named none', () => {
    const { source, second } = twinLoops();
    const lines = source.split('\n');
    lines.splice(second - 4, 0, 'static void second_half(void) {');
    lines.splice(3, 0, 'static void first_half(void) {');
    const answer = [
      '*** Begin Patch',
      '*** Update File: src/main.c',
      '@@ half(void)',
      ...REDUCTION_HUNK.slice(1, 6),
      '*** End Patch',
    ].join('\n');
    const report = applyFilePatch(lines.join('\n'), patchOf(answer));
    expect(report.ok).toBe(false);
    expect(report.result).toBeNull();
    expect(report.hunks[0]!.status).toBe('ambiguous');
    expect(report.hunks[0]!.detail).toContain(
      'its anchor `@@ half(void)` is part of 2 lines (lines 4, ' + (second - 2) + '), so it names none of them',
    );
  });

  it('takes the identical loop the declared line points at exactly', () => {
    const { source, second } = twinLoops();
    const report = applyFilePatch(source, patchOf(hunkText(second - 3, REDUCTION_HUNK)));
    expect(report.hunks[0]!.status).toBe('exact');
    expect(report.result).toBe(insertLine(source, second, REDUCTION_PRAGMA));
  });

  it('refuses fuzzy placement of a directive when the line under it differs (the pragma anchor)', () => {
    const wrongLoop = REDUCTION_HUNK.map((line) =>
      line.startsWith('     for') ? '     for (i = 0; i <= N; i++) {' : line,
    );
    const report = applyFilePatch(MAIN_C, patchOf(hunkText(8, wrongLoop)));
    expect(report.ok).toBe(false);
    expect(report.hunks[0]!.status).toBe('failed');
    expect(report.hunks[0]!.detail).toContain('right after an inserted directive');
  });

  it('applies the same near-miss when the hunk inserts no directive', () => {
    const wrongLoop = REDUCTION_HUNK.map((line) =>
      line.startsWith('     for')
        ? '     for (i = 0; i <= N; i++) {'
        : line.startsWith('+')
          ? '+    /* dot product */'
          : line,
    );
    const report = applyFilePatch(MAIN_C, patchOf(hunkText(8, wrongLoop)));
    expect(report.hunks[0]!.status).toBe('fuzzy');
  });

  it("lands hunks in order, carrying the first hunk's offset to the second", () => {
    const patch = [
      '--- a/src/main.c',
      '+++ b/src/main.c',
      '@@ -1,3 +1,4 @@',
      ' #include <stdio.h>',
      '+#include <omp.h>',
      ' #define N 1000',
      ' ',
      '@@ -9,5 +10,6 @@',
      ...REDUCTION_HUNK.slice(1),
    ].join('\n');
    const withBanner = `/* banner */\n/* banner */\n${MAIN_C}`;
    const report = applyFilePatch(withBanner, patchOf(patch));
    expect(report.hunks.map((hunk) => [hunk.status, hunk.declaredLine, hunk.bestLine])).toEqual([
      ['offset', 1, 3],
      ['exact', 11, 11],
    ]);
    expect(report.result).toBe(
      `/* banner */\n/* banner */\n${insertLine(insertLine(MAIN_C, 11, REDUCTION_PRAGMA), 2, '#include <omp.h>')}`,
    );
  });

  it('never places a later hunk above an earlier one', () => {
    const patch = [
      '--- a/src/main.c',
      '+++ b/src/main.c',
      '@@ -11,2 +11,3 @@',
      '     for (i = 0; i < N; i++) {',
      '+        /* x */',
      '         sum += a[i] * b[i];',
      '@@ -7,2 +8,3 @@',
      '     for (i = 0; i < N; i++) {',
      '+        /* y */',
      '         a[i] = i * 0.5;',
    ].join('\n');
    const report = applyFilePatch(MAIN_C, patchOf(patch));
    expect(report.ok).toBe(false);
    expect(report.hunks[1]!.status).toBe('failed');
  });

  it('is all-or-none: one failing hunk leaves no result', () => {
    const patch = [
      ...GENERATED_21.split('\n').slice(0, 10),
      '@@ -14,1 +15,1 @@',
      '-    printf("%d\\n", sum);',
      '+    printf("%g\\n", sum);',
      '',
    ].join('\n');
    const report = applyFilePatch(MAIN_C, patchOf(patch));
    expect(report.hunks.map((hunk) => hunk.status)).toEqual(['exact', 'failed']);
    expect(report.ok).toBe(false);
    expect(report.result).toBeNull();
  });

  it('reports a patch whose change is already there as already applied, never reversing it', () => {
    const report = applyFilePatch(MAIN_C_PATCHED, patchOf(GENERATED_21));
    expect(report.alreadyApplied).toBe(true);
    expect(report.ok).toBe(false);
    expect(report.hunks[0]).toMatchObject({ status: 'already-applied', bestLine: 8 });
  });

  it('keeps CRLF line ends and handles a final line without newline', () => {
    const crlf = MAIN_C.replace(/\n/g, '\r\n');
    expect(applyFilePatch(crlf, patchOf(GENERATED_21)).result).toBe(MAIN_C_PATCHED.replace(/\n/g, '\r\n'));
    const eof = ['--- k.c', '+++ k.c', '@@ -1,2 +1,2 @@', ' a', '-b', '\\ No newline at end of file', '+b', ''].join(
      '\n',
    );
    expect(applyFilePatch('a\nb', patchOf(eof)).result).toBe('a\nb\n');
  });
});

describe('applyPatchSet', () => {
  const generated = new Map([['1', patchOf(GENERATED_21)]]);
  const sources = new Map([['1', MAIN_C]]);

  it('applies to the unpatched sources when it can', () => {
    const outcome = applyPatchSet({ sources, generated, candidate: generated });
    expect(outcome).toMatchObject({ ok: true, basis: 'unpatched' });
    if (outcome.ok) expect(outcome.contents.get('1')).toBe(MAIN_C_PATCHED);
  });

  it('offers the second reading of an answer whose other file only rewrites a context line', () => {
    const header = 'double a[N], b[N];\nint main(void) {\n    return 0;\n}\n';
    const resized = [
      '--- a/src/main.c',
      '+++ b/src/main.c',
      '@@ -1,3 +1,3 @@',
      ' #include <stdio.h>',
      '-#define N 1000',
      '+#define N 2000',
      ' ',
      '',
    ].join('\n');
    const contextOnly = [
      '--- a/src/arrays.h',
      '+++ b/src/arrays.h',
      '@@ -1,3 +1,3 @@',
      ' double a[N], b[N], c[N];',
      ' int main(void) {',
      '     return 0;',
      '',
    ].join('\n');
    const outcome = applyPatchSet({
      sources: new Map([...sources, ['2', header]]),
      generated,
      candidate: new Map([
        ['1', patchOf(resized)],
        ['2', patchOf(contextOnly)],
      ]),
    });
    expect(outcome.ok).toBe(false);
    expect(outcome.hunkContext?.contents.get('1')).toBe(MAIN_C.replace('#define N 1000', '#define N 2000'));
    expect(outcome.hunkContext?.contents.get('2')).toBe(header.replace('b[N];', 'b[N], c[N];'));
  });

  it('takes an answer written against the patched file as a change on top of the generated patch', () => {
    const onTop = hunkText(
      8,
      REDUCTION_HUNK.map((line) =>
        line.startsWith('+')
          ? `-${REDUCTION_PRAGMA}\n+    #pragma omp parallel for shared(a,b) reduction(+:sum) `
          : line,
      ),
    );
    const outcome = applyPatchSet({ sources, generated, candidate: new Map([['1', patchOf(onTop)]]) });
    expect(outcome).toMatchObject({ ok: true, basis: 'on-top' });
    if (outcome.ok)
      expect(outcome.contents.get('1')).toBe(
        insertLine(MAIN_C, 11, '    #pragma omp parallel for shared(a,b) reduction(+:sum) '),
      );
  });

  describe('an answer that applies both to the unpatched source and on top of the generated patch', () => {
    // Adds a declaration at the top and leaves the directive's lines alone: read against the
    // unpatched source it would drop the directive; on top of the generated patch it keeps it.
    const addsDeclaration = [
      '--- a/src/main.c',
      '+++ b/src/main.c',
      '@@ -1,3 +1,4 @@',
      ' #include <stdio.h>',
      '+#pragma omp declare reduction(plus : double : omp_out += omp_in) initializer(omp_priv = 0.0)',
      ' #define N 1000',
      ' ',
      '',
    ].join('\n');

    it('is read on top of the generated patch, the reading that keeps the directive', () => {
      const outcome = applyPatchSet({ sources, generated, candidate: new Map([['1', patchOf(addsDeclaration)]]) });
      expect(outcome).toMatchObject({ ok: true, basis: 'on-top' });
      if (outcome.ok)
        expect(outcome.contents.get('1')).toBe(
          MAIN_C_PATCHED.replace(
            '#define N',
            '#pragma omp declare reduction(plus : double : omp_out += omp_in) initializer(omp_priv = 0.0)\n#define N',
          ),
        );
    });

    it('is read against the unpatched source when both readings keep the directive', () => {
      // The directive hunk is already there on top of the generated patch, so both readings apply.
      const withDirective = `${addsDeclaration}${hunkText(8, REDUCTION_HUNK).split('\n').slice(2).join('\n')}`;
      const onTopAlso = new Map([['1', patchOf(withDirective)]]);
      const outcome = applyPatchSet({ sources, generated, candidate: onTopAlso });
      expect(outcome).toMatchObject({ ok: true, basis: 'unpatched' });
    });
  });

  describe('an answer on top of the generated patch that wraps the directive so it is not compiled', () => {
    // Its diff shows the directive as context; the engine can do without that line, so it applies
    // to the unpatched source too, where it would read as dropping the directive.
    const loop = '    for (i = 0; i < N; i++) {\n        sum += a[i] * b[i];\n    }\n';
    const judged = (wrapped: string) => {
      const candidate = MAIN_C_PATCHED.replace(`${REDUCTION_PRAGMA}\n${loop}`, wrapped);
      const outcome = applyPatchSet({
        sources,
        generated,
        candidate: new Map([['1', patchOf(createPatch('src/main.c', MAIN_C_PATCHED, candidate))]]),
      });
      if (!outcome.ok) throw new Error(outcome.text);
      const kept = checkDirectivesKept({
        original: MAIN_C,
        generated: MAIN_C_PATCHED,
        candidate: outcome.contents.get('1')!,
      });
      return { basis: outcome.basis, reason: kept.ok ? 'kept' : kept.reason };
    };

    it('is judged as written: commented out, not dropped', () => {
      expect(judged(`    /*\n${REDUCTION_PRAGMA}\n    */\n${loop}`)).toMatchObject({
        basis: 'on-top',
        reason: expect.stringMatching(/\(line 11\) was commented out; it must stay in effect/),
      });
    });

    it('is judged as written: switched off by `#if 0`, not dropped', () => {
      expect(judged(`#if 0\n${REDUCTION_PRAGMA}\n${loop}#else\n${loop}#endif\n`)).toMatchObject({
        basis: 'on-top',
        reason: expect.stringMatching(/\(line 11\) is switched off by `#if 0`; it must stay in effect/),
      });
    });
  });

  it('says so when the answer only repeats the generated patch on top of itself', () => {
    const candidate = patchOf(GENERATED_21.replace('-8,6 +8,7', '-9,6 +9,7'));
    const outcome = applyPatchSet({
      sources: new Map([['1', MAIN_C_PATCHED]]),
      generated: new Map([['1', patchOf(GENERATED_21)]]),
      candidate: new Map([['1', candidate]]),
    });
    expect(outcome).toMatchObject({ ok: false, verdict: 'already-applied' });
  });

  it('is all-or-none across files', () => {
    const other = patchOf(
      ['--- a/src/util.c', '+++ b/src/util.c', '@@ -1,1 +1,1 @@', '-int missing;', '+int present;', ''].join('\n'),
    );
    const outcome = applyPatchSet({
      sources: new Map([
        ['1', MAIN_C],
        ['2', 'int x;\n'],
      ]),
      generated,
      candidate: new Map([
        ['1', patchOf(GENERATED_21)],
        ['2', other],
      ]),
    });
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) {
      expect(outcome.verdict).toBe('failed');
      expect(outcome.reports.map((report) => report.ok)).toEqual([true, false]);
      expect(outcome.text).toContain('src/util.c: the patch does not apply');
    }
  });
});

describe('degenerate input', () => {
  it('an empty candidate is a failure, not "already applied"', () => {
    const outcome = applyPatchSet({
      sources: new Map([['1', MAIN_C]]),
      generated: new Map([['1', patchOf(GENERATED_21)]]),
      candidate: new Map(),
    });
    expect(outcome).toMatchObject({ ok: false, verdict: 'failed' });
    expect(applyFilePatch(MAIN_C, { oldPath: 'k.c', newPath: 'k.c', hunks: [] })).toMatchObject({
      ok: false,
      alreadyApplied: false,
    });
  });
});

describe('failure text for an answer written on top of the generated patch', () => {
  it('explains the on-top reading when it got further than the unpatched one', () => {
    const changed = '    #pragma omp parallel for shared(a,b) reduction(+:sum) ';
    const candidate = [
      '--- a/src/main.c',
      '+++ b/src/main.c',
      '@@ -8,7 +8,7 @@',
      '         a[i] = i * 0.5;',
      '         b[i] = i * 2.0;',
      '     }',
      `-${REDUCTION_PRAGMA}`,
      `+${changed}`,
      '     for (i = 0; i < N; i++) {',
      '         sum += a[i] * b[i];',
      '     }',
      '@@ -15,2 +15,2 @@',
      '-    return 1;',
      '+    return 2;',
      '',
    ].join('\n');
    const outcome = applyPatchSet({
      sources: new Map([['1', MAIN_C]]),
      generated: new Map([['1', patchOf(GENERATED_21)]]),
      candidate: new Map([['1', patchOf(candidate)]]),
    });
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) {
      expect(outcome.text.split('\n')[0]).toBe(
        'Read as a change on top of the generated patch (it does not apply to the unpatched source either):',
      );
      expect(outcome.reports[0]!.hunks.map((hunk) => hunk.status)).toEqual(['exact', 'failed']);
    }
  });
});
