// discover(): the reference build gates the run; every suggestion with a patch is built alone.
import { describe, expect, it } from 'vitest';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { discover } from '../../src/build/discover.js';
import { RefusedError } from '../../src/errors.js';
import { generatorPatch, insertBefore, makeProject, poolPerTest, suggestion, type TestProject } from './project.js';

const start = poolPerTest();
const poolFor = (p: TestProject, jobs: number) => start(p, { jobs, threads: 2 });

describe('discover', () => {
  it('refuses the run with the first diagnostics when the project does not build without any suggestion', async () => {
    const p = await makeProject({
      settings: { CC: 'gcc', CFLAGS: '-O0 -fopenmp -DBROKEN=1 -include /nonexistent/missing.h' },
    });
    const b = await poolFor(p, 2);
    const ok = suggestion(p, '1', {
      'src/a.c': await generatorPatch(p, 'src/a.c', insertBefore('for (i = 0', '#pragma omp parallel for')),
    });
    const error = await discover({ dp: p.dp, considered: [ok], pool: b, emit: p.emit }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RefusedError);
    expect((error as RefusedError).exitCode).toBe(3);
    expect((error as Error).message).toContain('does not build without any suggestion applied');
    expect((error as Error).message).toContain('/nonexistent/missing.h');
    // Only the reference was built.
    expect(p.events.filter((e) => e.type === 'build-started')).toHaveLength(1);
  });

  it('builds every considered suggestion with a patch in isolation and leaves out those without one', async () => {
    const p = await makeProject();
    const b = await poolFor(p, 2);
    const pragmaA = await generatorPatch(
      p,
      'src/a.c',
      insertBefore('for (i = 0', '#pragma omp parallel for private(i)'),
    );
    const brokenB = await generatorPatch(
      p,
      'src/b.c',
      insertBefore('for (i = 0', '#pragma omp parallel for private(t)'),
    );
    const bodyLocalA = await generatorPatch(
      p,
      'src/a.c',
      insertBefore('for (i = 0', '#pragma omp parallel for private(t)'),
    );
    const considered = [
      suggestion(p, '0', { 'src/a.c': pragmaA }),
      suggestion(p, '1', { 'src/b.c': brokenB }),
      suggestion(p, '2', {}),
      suggestion(p, '3', { 'src/a.c': bodyLocalA }),
      suggestion(p, '4', { 'src/a.c': pragmaA, 'src/b.c': brokenB }),
    ];
    const result = await discover({ dp: p.dp, considered, pool: b, emit: p.emit });
    expect(result.reference.ok).toBe(true);
    expect([...result.builds.keys()].sort()).toEqual(['0', '1', '3', '4']);
    const ok = Object.fromEntries([...result.builds].map(([id, r]) => [id, r.ok]));
    expect(ok).toEqual({ '0': true, '1': false, '3': false, '4': false });
    expect(result.builds.get('3')?.output).toMatch(/src\/a\.c:\d+:\d+: error: .t. undeclared/);
    // Diagnostics name the user's file, whichever workspace built it.
    expect(result.builds.get('3')).toMatchObject({ failedAt: 'compile', errorClass: 'undeclared-in-clause' });
    expect(result.builds.get('3')?.diagnostics[0]).toMatchObject({ fileId: '2', severity: 'error' });
    expect(result.builds.get('3')?.firstError).toMatch(/^src\/a\.c:\d+:\d+: error: .t. undeclared/);
    expect(p.events[0]).toMatchObject({
      type: 'discovery-started',
      suggestions: ['0', '1', '2', '3', '4'],
      builds: 4,
      jobs: 2,
    });
    await b.dispose();
    expect(await readdir(p.scratch)).toEqual([]);
  });
});

// A warning that the compiler ignored part of a directive fails a build when the patch added that
// directive, under either compiler, and never when the directive is the user's own code (here a
// function of b.c that a suggestion's patch moves down by a line).
describe.each([
  {
    cc: 'gcc',
    own: '#pragma omp paralel for',
    added: '#pragma omp paralel for shared(x)',
    warning: /^src\/a\.c:5: warning: ignoring '#pragma omp paralel' \[-Wunknown-pragmas\]$/,
  },
  {
    cc: 'clang',
    own: '#pragma omp parallel for depends(in:x)',
    added: '#pragma omp parallel for shared(x) depends(in:x)',
    warning:
      /^src\/a\.c:5:40: warning: extra tokens at the end of '#pragma omp parallel for' are ignored \[-Wextra-tokens\]$/,
  },
])('discover under $cc -Wall', ({ cc, own, added, warning }) => {
  it('fails the suggestion whose added directive the compiler partly ignored, with the warning as first error; the user’s own ignored directive fails nothing', async () => {
    const p = await makeProject({ settings: { CC: cc, CFLAGS: '-O0 -fopenmp -Wall' } });
    const b = join(p.root, 'src', 'b.c');
    await writeFile(
      b,
      `${await readFile(b, 'utf8')}void touch_b(double *x) {\n    ${own}\n    for (int j = 0; j < N; j++)\n        x[j] += 1.0;\n}\n`,
    );
    const pool = await poolFor(p, 2);
    const considered = [
      suggestion(p, '1', { 'src/a.c': await generatorPatch(p, 'src/a.c', insertBefore('for (i = 0', added)) }),
      suggestion(p, '2', {
        'src/b.c': await generatorPatch(p, 'src/b.c', insertBefore('for (i = 0', '#pragma omp parallel for shared(x)')),
      }),
    ];
    const result = await discover({ dp: p.dp, considered, pool, emit: p.emit });

    expect(result.reference.ok).toBe(true);
    const broken = result.builds.get('1')!;
    expect(broken).toMatchObject({
      ok: false,
      failedAt: 'compile',
      errorClass: 'unknown-clause',
      firstError: expect.stringMatching(warning),
    });
    expect(broken.diagnostics[0]).toMatchObject({
      file: 'src/a.c',
      fileId: '2',
      line: 5,
      severity: 'warning',
      failsBuild: true,
    });
    // The screen decided it: only the changed unit was compiled, with the reference build's own
    // command, and the compiler exited 0; only the rule failed the suggestion.
    expect(broken.output).toMatch(new RegExp(`^${cc} -O0 -fopenmp -Wall -c -o src/a\\.o src/a\\.c$`, 'm'));
    expect(broken.output).not.toContain('mark=a-original');

    const fine = result.builds.get('2')!;
    expect(fine.ok, fine.output).toBe(true);
    // b.c was recompiled with the patch, and the compiler warned about the user's directive, now a line lower.
    expect(fine.output).toMatch(/src\/b\.c:11:(?:\d+:)? warning: /);
  });
});
