// When a candidate does not apply, the explanation a model can act on: per hunk what was expected
// next to what the file has, the candidate places of an ambiguous hunk, and already-applied hunks.
import { describe, expect, it } from 'vitest';
import { applyFilePatch } from '../../src/patch/apply.js';
import { renderApplyFailure } from '../../src/patch/failure.js';
import { parsePatches } from '../../src/patch/parse.js';
import { GENERATED_21, MAIN_C } from './fixtures.js';

function report(patch: string, source = MAIN_C) {
  return { ...applyFilePatch(source, parsePatches(patch).patches[0]!), fileId: '1' };
}

describe('renderApplyFailure', () => {
  it('shows per hunk what was expected next to what the file has, and which lines to re-read', () => {
    const wrong = GENERATED_21.replace(
      '     for (i = 0; i < N; i++) {\n         sum',
      '     for (int j = 0; j < N; j++) {\n         sum',
    );
    const failed = report(wrong);
    expect(failed.hunks[0]).toMatchObject({
      status: 'failed',
      declaredLine: 8,
      bestLine: 8,
      expected: [
        '        a[i] = i * 0.5;',
        '        b[i] = i * 2.0;',
        '    }',
        '    for (int j = 0; j < N; j++) {',
        '        sum += a[i] * b[i];',
        '    }',
      ],
      found: [
        '        a[i] = i * 0.5;',
        '        b[i] = i * 2.0;',
        '    }',
        '    for (i = 0; i < N; i++) {',
        '        sum += a[i] * b[i];',
        '    }',
      ],
      reread: { from: 5, to: 16 },
    });
    expect(renderApplyFailure([failed])).toBe(
      [
        '/home/dev/demo/src/main.c: the patch does not apply (nothing was changed; all hunks must apply).',
        '  hunk 1 (@@ -8,6 +8,7 @@): FAILED — the closest place differs in a line that must match exactly (a removed line, or the line right after an inserted directive).',
        '    your hunk expects vs. the file at line 8 (score 0.83: 5 exact, 0 whitespace-only, 0 similar, 1 different of 6):',
        '      expected: "        a[i] = i * 0.5;"',
        '      expected: "        b[i] = i * 2.0;"',
        '      expected: "    }"',
        '    ! expected: "    for (int j = 0; j < N; j++) {"',
        '      file has: "    for (i = 0; i < N; i++) {"',
        '      expected: "        sum += a[i] * b[i];"',
        '      expected: "    }"',
        '    Re-read lines 5-16 of /home/dev/demo/src/main.c and copy the context lines exactly.',
      ].join('\n'),
    );
  });

  it('names the candidate places of an ambiguous hunk', () => {
    const twice = MAIN_C.replace(
      '    printf',
      '    for (i = 0; i < N; i++) {\n        sum += a[i] * b[i];\n    }\n    printf',
    );
    const patch = [
      '--- main.c',
      '+++ main.c',
      '@@ -3,2 +3,3 @@',
      '     for (i = 0; i < N; i++) {',
      '+        /* hot */',
      '         sum += a[i] * b[i];',
      '',
    ].join('\n');
    const text = renderApplyFailure([report(patch, twice)]);
    expect(text).toContain(
      'hunk 1 (@@ -3,2 +3,3 @@): AMBIGUOUS — matches exactly at 2 places (lines 11, 14) and the declared line is on none of them.',
    );
    expect(text).toContain('add context lines that tell these places apart');
    expect(text).toContain('Re-read lines 8-18 of main.c');
  });

  it('says when everything is already applied, and stays silent about files that applied', () => {
    const already = report(
      GENERATED_21,
      MAIN_C.replace(
        '    for (i = 0; i < N; i++) {\n        sum',
        '    #pragma omp parallel for private(i) shared(a,b) reduction(+:sum) \n    for (i = 0; i < N; i++) {\n        sum',
      ),
    );
    const fine = report(GENERATED_21);
    expect(renderApplyFailure([fine, already])).toBe(
      "/home/dev/demo/src/main.c: every hunk's change is already in the file, so the patch changes nothing there.",
    );
  });

  it('keeps the failure as data a transcript can store', () => {
    const failed = report(GENERATED_21.replace('b[i] = i * 2.0', 'c[k] = z'));
    expect(JSON.parse(JSON.stringify(failed.hunks[0]))).toEqual(failed.hunks[0]);
  });
});
