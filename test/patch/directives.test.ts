// Check 5, directives kept: a candidate may change clauses or move a misplaced directive onto its
// target, but deleting, commenting out, switching off, moving to another statement or out of the
// block the patch made for it is rejected with a reason.
import { describe, expect, it } from 'vitest';
import { checkDirectivesKept, directivesAddedByPatch } from '../../src/patch/directives.js';
import { parsePatches } from '../../src/patch/parse.js';
import { GENERATED_21, MAIN_C, MAIN_C_PATCHED, REDUCTION_PRAGMA, insertLine } from './fixtures.js';

/** MAIN_C with a second, identical reduction loop below the first. */
const TWIN = MAIN_C.replace(
  '    printf',
  '    for (i = 0; i < N; i++) {\n        sum += a[i] * b[i];\n    }\n    printf',
);
const TWIN_GENERATED = insertLine(TWIN, 11, REDUCTION_PRAGMA);

describe('directivesAddedByPatch', () => {
  it('extracts the generated directive with its construct and clauses', () => {
    const [directive] = directivesAddedByPatch(parsePatches(GENERATED_21).patches[0]!);
    expect(directive).toMatchObject({ indent: '    ', construct: 'parallel for' });
    expect(directive!.clauses.map((clause) => [clause.name, clause.modifier, clause.vars])).toEqual([
      ['private', undefined, ['i']],
      ['shared', undefined, ['a', 'b']],
      ['reduction', '+', ['sum']],
    ]);
  });

  it('joins backslash continuations and reads spaced and GPU forms', () => {
    const patch = [
      '--- k.c',
      '+++ k.c',
      '@@ -1,2 +1,5 @@',
      ' int x;',
      '+  # pragma omp target teams distribute parallel for device(0) \\',
      '+      map(to: a[0:n]) map(from: b[0:n]) ',
      '+#pragma omp task firstprivate(n) depends(in:a) ',
      ' for (;;) {}',
    ].join('\n');
    const directives = directivesAddedByPatch(parsePatches(patch).patches[0]!);
    expect(directives.map((directive) => directive.construct)).toEqual([
      'target teams distribute parallel for',
      'task',
    ]);
    expect(directives[0]!.clauses.map((clause) => [clause.name, clause.modifier, clause.vars])).toEqual([
      ['device', undefined, undefined],
      ['map', 'to', ['a[0:n]']],
      ['map', 'from', ['b[0:n]']],
    ]);
  });
});

describe('checkDirectivesKept', () => {
  const check = (candidate: string, generated = MAIN_C_PATCHED, original = MAIN_C) =>
    checkDirectivesKept({ original, generated, candidate, fileId: '1' });

  it('passes a candidate that only changes clauses, and lists the changes', () => {
    const candidate = insertLine(
      MAIN_C,
      11,
      '    #pragma omp parallel for shared(a,b,i) reduction(+:sum) schedule(static) ',
    );
    const verdict = check(candidate);
    expect(verdict).toEqual({
      ok: true,
      nonDirectiveLinesChanged: false,
      changes: [
        {
          file: '1',
          directive: REDUCTION_PRAGMA.trim(),
          kind: 'clause-removed',
          clause: 'private',
          from: 'private(i)',
        },
        {
          file: '1',
          directive: REDUCTION_PRAGMA.trim(),
          kind: 'clause-added',
          clause: 'schedule',
          to: 'schedule(static)',
        },
        {
          file: '1',
          directive: REDUCTION_PRAGMA.trim(),
          kind: 'variable-moved',
          variable: 'i',
          from: 'private',
          to: 'shared',
        },
      ],
    });
  });

  it('passes the generated patch itself with no changes', () => {
    expect(check(MAIN_C_PATCHED)).toEqual({ ok: true, changes: [], nonDirectiveLinesChanged: false });
  });

  it('rejects a candidate that deletes the directive', () => {
    const verdict = check(MAIN_C);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok)
      expect(verdict.reason).toBe(
        'the directive `#pragma omp parallel for private(i) shared(a,b) reduction(+:sum)` above `for (i = 0; i < N; i++) {` (line 11) was dropped; it must stay (only its clauses may change)',
      );
  });

  it('rejects a candidate that comments the directive out', () => {
    const verdict = check(insertLine(MAIN_C, 11, `    // ${REDUCTION_PRAGMA.trim()}`));
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reason).toMatch(/was commented out/);
  });

  it('rejects a directive kept inside a block comment that closes on the loop line', () => {
    const loop = '    for (i = 0; i < N; i++) {\n        sum';
    const verdict = check(MAIN_C.replace(loop, `    /*\n${REDUCTION_PRAGMA}\n    */ ${loop.trimStart()}`));
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reason).toMatch(/\(line 11\) was commented out/);
  });

  it('rejects a directive switched off with `#if 0`, even with the loop copied into `#else`', () => {
    const loop = '    for (i = 0; i < N; i++) {\n        sum += a[i] * b[i];\n    }\n';
    const verdict = check(MAIN_C.replace(loop, `#if 0\n${REDUCTION_PRAGMA}\n${loop}#else\n${loop}#endif\n`));
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reason).toMatch(/\(line 11\) is switched off by `#if 0`/);
  });

  it('still reads a directive below a closed comment, with a comment running on below it, after an `#if 0` group, and inside its `#else`', () => {
    const loop = '    for (i = 0; i < N; i++) {\n        sum += a[i] * b[i];\n    }\n';
    const at = (text: string) => check(MAIN_C.replace(loop, text));
    expect(at(`    /* the dot product */\n${REDUCTION_PRAGMA}\n${loop}`).ok).toBe(true);
    expect(at(`${REDUCTION_PRAGMA} /* one partial sum\n       per thread */\n${loop}`).ok).toBe(true);
    expect(at(`#if 0\n    #pragma omp parallel\n#endif\n${REDUCTION_PRAGMA}\n${loop}`).ok).toBe(true);
    expect(at(`#if 0\n#if 1\n#endif\n    int unused;\n#else\n${REDUCTION_PRAGMA}\n${loop}#endif\n`).ok).toBe(true);
  });

  describe('a kept directive whose clauses switch it off', () => {
    const GENERATED = REDUCTION_PRAGMA.trim();
    const withClauses = (clauses: string) =>
      insertLine(MAIN_C, 11, `    #pragma omp parallel for private(i) shared(a,b) reduction(+:sum) ${clauses} `);

    it.each([
      'if(0)',
      'if(false)',
      'if(parallel: 0)',
      'if( (0) )',
      'if(0L)',
      'if(0.0)',
      'if(!1)',
      'num_threads(1)',
      'num_threads( 1 )',
    ])('rejects an added `%s`, naming it', (clause) => {
      const verdict = check(withClauses(clause));
      expect(verdict.ok).toBe(false);
      if (!verdict.ok)
        expect(verdict.reason).toContain(
          `the directive \`${GENERATED}\` above \`for (i = 0; i < N; i++) {\` (line 11) switches the parallel region off: \`${clause}\``,
        );
    });

    it('rejects an existing `if`/`num_threads` changed to a value that switches it off', () => {
      const generated = insertLine(
        MAIN_C,
        11,
        '    #pragma omp parallel for reduction(+:sum) if(N > 1000) num_threads(4) ',
      );
      const reason = (candidate: string) => {
        const verdict = check(candidate, generated);
        return verdict.ok ? 'accepted' : verdict.reason;
      };
      expect(reason(generated.replace('if(N > 1000)', 'if(0)'))).toMatch(/switches the parallel region off: `if\(0\)`/);
      expect(reason(generated.replace('num_threads(4)', 'num_threads(1)'))).toMatch(
        /switches the parallel region off: `num_threads\(1\)` runs it on one thread/,
      );
    });

    it('accepts a switch-off the generated directive already carried, and a condition that depends on the program', () => {
      const generated = withClauses('num_threads(1)');
      expect(check(generated.replace('num_threads(1) ', 'num_threads(1) schedule(static) '), generated).ok).toBe(true);
      expect(check(withClauses('if(N > 1000)'))).toMatchObject({
        ok: true,
        changes: [{ kind: 'clause-added', clause: 'if', to: 'if(N > 1000)' }],
      });
      expect(check(withClauses('num_threads(10)')).ok).toBe(true);
      expect(check(withClauses('if(10)')).ok).toBe(true);
    });

    it('names the construct when it is not a parallel region', () => {
      const original = 'void z(int n, double *x) {\n    for (int i = 0; i < n; i++)\n        x[i] = 0.0;\n}\n';
      const generated = insertLine(original, 2, '    #pragma omp simd ');
      const verdict = checkDirectivesKept({
        original,
        generated,
        candidate: insertLine(original, 2, '    #pragma omp simd if(simd: false) '),
      });
      expect(verdict.ok).toBe(false);
      if (!verdict.ok) expect(verdict.reason).toMatch(/switches the `simd` construct off: `if\(simd: false\)`/);
    });
  });

  describe('preprocessor groups never compiled', () => {
    const loop = '    for (i = 0; i < N; i++) {\n        sum += a[i] * b[i];\n    }\n';
    const at = (text: string) => check(MAIN_C.replace(loop, text));
    const reason = (text: string) => {
      const verdict = at(text);
      return verdict.ok ? 'accepted' : verdict.reason;
    };

    it('rejects the directive in `#elif 0`, in `#else` or `#elif` after `#if 1`, and nested inside them', () => {
      expect(reason(`#if FAST\n${loop}#elif 0\n${REDUCTION_PRAGMA}\n${loop}#else\n${loop}#endif\n`)).toMatch(
        /\(line 11\) is switched off by `#elif 0`; it must stay in effect/,
      );
      expect(reason(`#if 1\n${loop}#else\n${REDUCTION_PRAGMA}\n${loop}#endif\n`)).toMatch(
        /\(line 11\) is switched off by `#else` after `#if 1`/,
      );
      expect(
        reason(`#if 1 /* sequential */\n${loop}#elif defined(_OPENMP)\n${REDUCTION_PRAGMA}\n${loop}#endif\n`),
      ).toMatch(/is switched off by `#elif defined\(_OPENMP\)` after `#if 1`/);
      expect(
        reason(`#if FAST\n${loop}#elif 1\n${loop}#else\n#ifdef _OPENMP\n${REDUCTION_PRAGMA}\n${loop}#endif\n#endif\n`),
      ).toMatch(/is switched off by `#else` after `#elif 1`/);
    });

    it('keeps a directive in a group that may be compiled: macros are not evaluated', () => {
      expect(at(`#ifdef NEVER\n    int unused;\n#else\n${REDUCTION_PRAGMA}\n${loop}#endif\n`).ok).toBe(true);
      expect(at(`#if 0\n    int unused;\n#elif 1\n${REDUCTION_PRAGMA}\n${loop}#endif\n`).ok).toBe(true);
      expect(at(`#if 1\n${REDUCTION_PRAGMA}\n${loop}#else\n    int unused;\n#endif\n`).ok).toBe(true);
      expect(
        at(`#if SEQUENTIAL\n    int unused;\n#elif 0\n    int unused;\n#else\n${REDUCTION_PRAGMA}\n${loop}#endif\n`).ok,
      ).toBe(true);
    });
  });

  it('rejects a candidate that moves the directive to the other identical loop', () => {
    const lines = TWIN.split('\n');
    const second = lines.lastIndexOf('    for (i = 0; i < N; i++) {') + 1;
    const verdict = check(insertLine(TWIN, second, REDUCTION_PRAGMA), TWIN_GENERATED, TWIN);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok)
      expect(verdict.reason).toMatch(
        /\(line 11\) was moved above `for \(i = 0; i < N; i\+\+\) \{` \(line 14\), another statement/,
      );
  });

  it('rejects a weaker construct, naming both', () => {
    const verdict = check(insertLine(MAIN_C, 11, '    #pragma omp for reduction(+:sum) '));
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reason).toMatch(/became `for`: the construct `parallel for` must stay/);
  });

  it('accepts moving a misplaced directive onto its target as a repair', () => {
    // A blank line separates the generated pragma from its loop; the candidate closes the gap.
    const original = MAIN_C.replace(
      '    }\n    for (i = 0; i < N; i++) {\n        sum',
      '    }\n\n    for (i = 0; i < N; i++) {\n        sum',
    );
    const verdict = checkDirectivesKept({
      original,
      generated: insertLine(original, 11, REDUCTION_PRAGMA),
      candidate: insertLine(original, 12, REDUCTION_PRAGMA),
    });
    expect(verdict).toMatchObject({
      ok: true,
      nonDirectiveLinesChanged: false,
      changes: [{ kind: 'directive-moved', from: 'above line 11', to: 'above line 12' }],
    });
  });

  it.each([
    ['an if', '    if (n > 0)\n'],
    ['a label', '  body:\n'],
    ['a block', '    {\n'],
  ])('accepts moving a loop directive from %s onto the loop the statement holds', (_what, opener) => {
    const loop = '        for (int i = 0; i < n; i++)\n            x[i] = 0.0;\n';
    const closer = opener.trim() === '{' ? '    }\n' : '';
    const original = `void z(int n, double *x) {\n${opener}${loop}${closer}}\n`;
    const pragma = '        #pragma omp parallel for shared(x) \n';
    const generated = original.replace(opener, `${pragma}${opener}`);
    const candidate = original.replace(loop, `${pragma}${loop}`);
    expect(checkDirectivesKept({ original, generated, candidate })).toMatchObject({
      ok: true,
      nonDirectiveLinesChanged: false,
    });
    // Moving it to a statement after the loop is still not a repair.
    const elsewhere = `${original.slice(0, -2)}    x[0] = 1.0;\n}\n`;
    const moved = elsewhere.replace('    x[0] = 1.0;\n', `${pragma}    x[0] = 1.0;\n`);
    expect(
      checkDirectivesKept({
        original: elsewhere,
        generated: elsewhere.replace(opener, `${pragma}${opener}`),
        candidate: moved,
      }).ok,
    ).toBe(false);
  });

  describe('identifies a target by its position in the original file', () => {
    const original =
      'void smooth(size_t n, double *x, const double *y) {\n    size_t i;\n    for (i = 1; i + 1 < n; ++i)\n        x[i] = 0.5 * (y[i - 1] + y[i + 1]);\n    for (i = 1; i + 1 < n; ++i)\n        x[i] += y[i];\n}\n';
    const pragma = '    #pragma omp parallel for shared(x,y) ';
    const generated = insertLine(original, 3, pragma);

    it('keeps the directive when the repair rewrites its loop header to canonical form', () => {
      const candidate = generated.replace(
        'for (i = 1; i + 1 < n; ++i)\n        x[i] = 0.5',
        'for (i = 1; i < n - 1; ++i)\n        x[i] = 0.5',
      );
      expect(checkDirectivesKept({ original, generated, candidate })).toMatchObject({
        ok: true,
        nonDirectiveLinesChanged: true,
        changes: [],
      });
    });

    it('keeps it when an unsigned guard wraps the rewritten loop', () => {
      const candidate = original.replace(
        '    for (i = 1; i + 1 < n; ++i)\n        x[i] = 0.5',
        `    if (n > 1)\n${pragma}\n    for (i = 1; i < n - 1; ++i)\n        x[i] = 0.5`,
      );
      expect(checkDirectivesKept({ original, generated, candidate })).toMatchObject({
        ok: true,
        nonDirectiveLinesChanged: true,
      });
    });

    it('still rejects the directive moved onto the other loop with the same header', () => {
      const candidate = insertLine(original, 5, pragma);
      const verdict = checkDirectivesKept({ original, generated, candidate });
      expect(verdict.ok).toBe(false);
      if (!verdict.ok)
        expect(verdict.reason).toMatch(
          /\(line 3\) was moved above `for \(i = 1; i \+ 1 < n; \+\+i\)` \(line 5\), another statement/,
        );
    });

    it('rejects a rewrite of the other loop that carries the directive along', () => {
      const candidate = insertLine(original, 5, pragma).replace(
        'for (i = 1; i + 1 < n; ++i)\n        x[i] +=',
        'for (i = 1; i < n - 1; ++i)\n        x[i] +=',
      );
      expect(checkDirectivesKept({ original, generated, candidate }).ok).toBe(false);
    });
  });

  describe('a loop directive DiscoPoP put above a declaration', () => {
    const original =
      'void scale(struct matrix *m, double f) {\n    const int rows = m->rows;\n    for (int r = 0; r < rows; r++)\n        m->v[r] *= f;\n    for (int r = 0; r < rows; r++)\n        m->w[r] *= f;\n}\n';
    const pragma = '    #pragma omp parallel for shared(m,f) ';
    const generated = insertLine(original, 2, pragma);

    it('is kept when the repair moves it down onto the loop below', () => {
      expect(checkDirectivesKept({ original, generated, candidate: insertLine(original, 3, pragma) })).toMatchObject({
        ok: true,
        nonDirectiveLinesChanged: false,
        changes: [{ kind: 'directive-moved', from: 'above line 2', to: 'above line 3' }],
      });
    });

    it('is rejected where it stands, naming the loop it must sit on', () => {
      const verdict = checkDirectivesKept({
        original,
        generated,
        candidate: generated.replace('shared(m,f)', 'firstprivate(f)'),
      });
      expect(verdict.ok).toBe(false);
      if (!verdict.ok)
        expect(verdict.reason).toBe(
          'the directive `#pragma omp parallel for shared(m,f)` for the loop `for (int r = 0; r < rows; r++)` (line 3) stands above `const int rows = m->rows;`; it must stand directly above its loop `for (int r = 0; r < rows; r++)` (line 3) (blank and comment lines may sit between)',
        );
    });

    it('is rejected when moved onto the second loop', () => {
      expect(checkDirectivesKept({ original, generated, candidate: insertLine(original, 5, pragma) }).ok).toBe(false);
    });

    it("at a block's closing brace, is kept when moved down onto the first loop after the brace (design.md)", () => {
      const nested =
        'void g(int n, double *x) {\n    if (n > 0) {\n        x[0] = 1;\n    }\n    for (int i = 0; i < n; i++)\n        x[i] = 0;\n}\n';
      const atBrace = insertLine(nested, 4, '        #pragma omp parallel for ');
      const moved = insertLine(nested, 5, '    #pragma omp parallel for ');
      expect(checkDirectivesKept({ original: nested, generated: atBrace, candidate: moved })).toMatchObject({
        ok: true,
        nonDirectiveLinesChanged: false,
      });
      const stays = checkDirectivesKept({ original: nested, generated: atBrace, candidate: atBrace });
      expect(stays.ok).toBe(false);
      if (!stays.ok)
        expect(stays.reason).toContain('it must stand directly above its loop `for (int i = 0; i < n; i++)` (line 5)');
    });

    it('looks past the end of its block once, not past the end of the enclosing block', () => {
      const nested =
        'void g(int n, double *x) {\n    {\n        {\n            const int k = n;\n        }\n    }\n    for (int i = 0; i < n; i++)\n        x[i] = 0;\n}\n';
      const inner = insertLine(nested, 4, '            #pragma omp parallel for ');
      const moved = insertLine(nested, 7, '    #pragma omp parallel for ');
      expect(checkDirectivesKept({ original: nested, generated: inner, candidate: moved }).ok).toBe(false);
    });
  });

  it('flags changes outside the directives', () => {
    const candidate = MAIN_C_PATCHED.replace('printf("%f\\n", sum);', 'printf("%g\\n", sum);');
    expect(check(candidate)).toMatchObject({ ok: true, nonDirectiveLinesChanged: true });
  });
});

describe('a directive the patch put inside a block it inserted (a task region)', () => {
  const original = [
    'int fib(int n) {',
    '    int x, y;',
    '    x = fib(n - 1);',
    '    y = fib(n - 2);',
    '    return x + y;',
    '}',
    '',
  ].join('\n');
  const region = (body: string[]) =>
    original.replace('    x = fib(n - 1);\n    y = fib(n - 2);\n', [...body, ''].join('\n'));
  // DiscoPoP's generator: the closing brace before the last task's statement, so that task stands on it.
  const generated = region([
    '#pragma omp parallel',
    '#pragma omp single',
    '{',
    '#pragma omp task',
    '    x = fib(n - 1);',
    '#pragma omp task',
    '}',
    '    y = fib(n - 2);',
  ]);
  const check = (candidate: string) => checkDirectivesKept({ original, generated, candidate });

  it("is kept when the closing brace moves below the last task's statement", () => {
    const braceMoved = region([
      '#pragma omp parallel',
      '#pragma omp single',
      '{',
      '#pragma omp task',
      '    x = fib(n - 1);',
      '#pragma omp task',
      '    y = fib(n - 2);',
      '}',
    ]);
    expect(check(braceMoved)).toMatchObject({ ok: true });
  });

  it('is not kept when the task moves below the brace: it governs the same statement, outside the region', () => {
    const taskMoved = region([
      '#pragma omp parallel',
      '#pragma omp single',
      '{',
      '#pragma omp task',
      '    x = fib(n - 1);',
      '}',
      '#pragma omp task',
      '    y = fib(n - 2);',
    ]);
    expect(check(taskMoved)).toEqual({
      ok: false,
      reason:
        "the directive `#pragma omp task` above `y = fib(n - 2);` (line 4) was moved out of the block `#pragma omp single` governs, which the patch opens before `x = fib(n - 1);` (line 3); it must stay inside that block, or it no longer runs in that region: move the block's closing brace below the statement instead of moving the directive",
    });
  });
});
