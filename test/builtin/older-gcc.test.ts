// gcc 8 and older reject a const object named in `shared` or `private`: it is predetermined shared.
// gcc 8 is not installable here, so the build carries gcc 8's wording as recorded in gcc's own
// test suite (the dg-error lines of c-c++-common/gomp/pr88203-*.c: "'__func__' is predetermined
// 'shared' for 'private'", and g++.dg/gomp/sharing-2.C before gcc 9), at the column gcc points to;
// the generated patch, the answer applied with GNU patch and the rebuild are real, with gcc 12 and
// clang 14 (which accept both forms, so the repair must build under them too).
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { builtinRepair } from '../../src/builtin/index.js';
import { classifyError } from '../../src/build/diagnostics.js';
import type { BuildResult } from '../../src/formats/types.js';
import { applyAndCompile, COMPILERS, directivesAboveLoops, prepareFixture, type Fixture } from './harness.js';

const scratch = mkdtempSync(path.join(tmpdir(), 'pr-gcc8-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const SOURCE = `#include <stdio.h>

void scale(int len, double *v)
{
    const double factor = 2.5;
    double t;
    for (int i = 0; i < len; i++) {
        t = v[i] * factor;
        v[i] = t;
    }
}

int main(void)
{
    double v[100];
    for (int i = 0; i < 100; i++)
        v[i] = i;
    scale(100, v);
    printf("%.1f %.1f\\n", v[1], v[99]);
    return 0;
}
`;

function fixture(name: string, directive: Record<string, unknown>): Fixture {
  const dir = path.join(scratch, 'fixtures', name);
  mkdirSync(path.join(dir, 'project', 'src'), { recursive: true });
  writeFileSync(path.join(dir, 'project', 'src', 'scale.c'), SOURCE);
  return {
    name,
    dir,
    spec: {
      class: 'invalid-privatization',
      file: 'src/scale.c',
      expect: 'repaired',
      directives: [{ start_line: 7, pragma: '#pragma omp parallel for', ...directive }],
    },
  };
}

/** The generated patch's build as gcc 8 reports it: the recorded message at the name's column of the directive (line 7). */
function gcc8Build(name: string, clause: string, directiveLine: string): BuildResult {
  const message = `'${name}' is predetermined 'shared' for '${clause}'`;
  const column =
    directiveLine.indexOf(`${clause}(`) + directiveLine.slice(directiveLine.indexOf(`${clause}(`)).indexOf(name) + 1;
  const diagnostic = {
    file: 'src/scale.c',
    fileId: '1',
    line: 7,
    column,
    severity: 'error' as const,
    message,
    errorClass: classifyError(message),
    notes: [],
  };
  return {
    ok: false,
    failedAt: 'compile',
    output: `src/scale.c:7:${column}: error: ${message}\n`,
    diagnostics: [diagnostic],
    errorClass: diagnostic.errorClass,
    firstError: `src/scale.c:7:${column}: error: ${message}`,
    durationMs: 1,
  };
}

describe.each(COMPILERS)("gcc 8's \"predetermined 'shared'\", the repair rebuilt with %s", (family) => {
  it.each([
    ['shared', { shared: ['v', 'factor'], private: ['t'] }, '#pragma omp parallel for private(t) shared(v)'],
    ['private', { private: ['t', 'factor'], shared: ['v'] }, '#pragma omp parallel for private(t) shared(v)'],
  ])(
    "'factor' in %s: dropped from the clause (a const object is shared anyway)",
    async (clause, directive, repaired) => {
      const prepared = await prepareFixture(fixture(`${clause}-${family}`, directive), scratch, family);
      const line = prepared.task.patched.get('1')!.split('\n')[6]!;
      const task = { ...prepared.task, build: gcc8Build('factor', clause, line) };
      expect(task.build.errorClass).toBe('invalid-privatization');
      const result = await builtinRepair(task);
      expect(result).toMatchObject({ kind: 'answer', rules: ['drop-predetermined-shared'] });
      const checked = await applyAndCompile(
        { ...prepared, task },
        result.kind === 'answer' ? result.text : '',
        scratch,
      );
      expect(checked.applied, checked.patchOutput).toBe(true);
      expect(checked.compiled, checked.compileOutput).toBe(true);
      expect(directivesAboveLoops(checked.repaired).length).toBe(1);
      expect(checked.repaired.split('\n')[6]!.trim()).toBe(repaired);
    },
  );

  it('declines firstprivate, which gcc 8 says only of a const object with mutable members', async () => {
    const prepared = await prepareFixture(
      fixture(`firstprivate-${family}`, { first_private: ['factor'], private: ['t'], shared: ['v'] }),
      scratch,
      family,
    );
    const line = prepared.task.patched.get('1')!.split('\n')[6]!;
    const result = await builtinRepair({ ...prepared.task, build: gcc8Build('factor', 'firstprivate', line) });
    expect(result).toEqual({
      kind: 'declined',
      reason: expect.stringContaining(
        "'factor' is a const object with mutable members, which gcc 8 and older cannot privatize",
      ),
    });
  });
});
