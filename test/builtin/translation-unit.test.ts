// The translation unit as the build's compiler makes it (real gcc and clang, `-E` through
// src/build/preprocess.ts) and what the built-in repairer reads from it: names declared through
// macros and headers, at the directive's line mapped through the line markers.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preprocessPatched } from '../../src/build/preprocess.js';
import { analyzeSite } from '../../src/builtin/scope.js';
import { parseTranslationUnit } from '../../src/builtin/translation-unit.js';
import { moveUnitLines } from '../../src/builtin/unit-moves.js';
import { projectWith } from '../diagnostics/compilers.js';

const HEADER = `#define N 64
#define ARRAY_1D(name, n) name[n]
typedef double real_t;
struct acc { real_t sum; int count; };
`;
const SOURCE = `#include "kernel.h"
static const int lanes = 4;
real_t ARRAY_1D(weights, N);

void scale(int n, real_t ARRAY_1D(y, N), struct acc *a)
{
  int i;
  #pragma omp parallel for reduction(+:y)
  for (i = 0; i < n; i++)
    y[i % lanes] += weights[i] * a->sum;
}
`;

let root = '';
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'translation-unit-'));
  await mkdir(join(root, 'src'));
  await writeFile(join(root, 'src', 'kernel.h'), HEADER);
  await writeFile(join(root, 'src', 'kernel.c'), SOURCE);
});
afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

function project(compiler: string, flags: string) {
  const base = projectWith(root, ['src/kernel.c']);
  return { ...base, config: { ...base.config, layout: 'shared' as const, settings: { CC: compiler, CFLAGS: flags } } };
}

describe.each(['gcc', 'clang'])('%s -E', (compiler) => {
  it('shows the macro-declared array parameter and global, the typedef and the header struct at the directive', async () => {
    const dp = project(compiler, '-fopenmp -O2');
    const unit = await preprocessPatched({ dp, source: dp.files.get('1')!, patched: SOURCE });
    expect(unit.ok, unit.ok ? '' : unit.reason).toBe(true);
    if (!unit.ok) return;
    const tu = await parseTranslationUnit(unit.text);
    const directiveLine = SOURCE.split('\n').findIndex((line) => line.includes('#pragma omp')) + 1;
    const row = tu.rowOf(directiveLine + 1)!;
    expect(tu.lines[row]).toContain('for (i = 0; i < n; i++)');
    const site = analyzeSite(tu.tree, row);
    expect(site.visible.get('y')).toMatchObject({ kind: 'parameter', isArray: true, typeText: 'real_t' });
    expect(site.visible.get('weights')).toMatchObject({ isArray: true });
    expect(site.visible.get('lanes')).toMatchObject({ isConst: true });
    expect(site.visible.get('a')).toMatchObject({ isPointer: true, typeName: 'acc' });
    expect(site.lookup.kind).toBe('loop');
  });

  it('says why when the preprocessor cannot run with the settings', async () => {
    const dp = project(compiler, '-fopenmp -include missing-header.h');
    const unit = await preprocessPatched({ dp, source: dp.files.get('1')!, patched: SOURCE });
    expect(unit).toMatchObject({
      ok: false,
      reason: expect.stringContaining(`'${compiler} -E' with the settings on src/kernel.c failed`),
    });
  });
});

// move-task-region-brace moves the region's closing brace below the last task's statement and
// repairs the rest of the file again: the unit, made before the move, must move the same way, or
// the rows between the old and the new brace are read one line off (the macro check compares the
// last task's statement with the brace).
const REGION = `#include "kernel.h"
static real_t ARRAY_1D(out, N);

void halves(int n)
{
  real_t a, b;
  #pragma omp parallel
  #pragma omp single
  {
  #pragma omp task
  a = out[0] * n;
  #pragma omp task
  }
  b = out[1] * n;
  out[2] = a + b;
}
`;

describe.each(['gcc', 'clang'])('%s -E, after the task region brace moved', (compiler) => {
  it('reads the last task statement at its new row, as the moved file has it', async () => {
    const dp = project(compiler, '-fopenmp');
    const unit = await preprocessPatched({ dp, source: dp.files.get('1')!, patched: REGION });
    expect(unit.ok, unit.ok ? '' : unit.reason).toBe(true);
    if (!unit.ok) return;
    const lines = REGION.split('\n');
    const brace = lines.findIndex((line) => line.trim() === '}');
    const statement = brace + 1;
    const stale = await parseTranslationUnit(unit.text);
    // Before: the brace's row holds the brace, the statement's row the statement.
    expect(stale.textOf(brace + 1).trim()).toBe('}');

    const moved = moveUnitLines(unit.text, [{ from: brace, to: statement }]);
    expect(moved).not.toBeNull();
    const tu = await parseTranslationUnit(moved!);
    // After: the statement is where the moved file has it, and the brace right below it.
    expect(tu.textOf(brace + 1).trim()).toBe('b = out[1] * n;');
    expect(tu.textOf(statement + 1).trim()).toBe('}');
    const site = analyzeSite(tu.tree, tu.rowOf(brace + 1)!);
    expect(site.target?.text).toBe('b = out[1] * n;');
    expect(site.visible.get('out')).toMatchObject({ isArray: true, typeText: 'real_t' });
  });

  it('leaves the unit out rather than misread it when a line marker stands inside the moved stretch', () => {
    const text = ['# 1 "k.c"', 'int x;', '{', '# 3 "k.c"', 'x = 1;', ''].join('\n');
    expect(moveUnitLines(text, [{ from: 1, to: 2 }])).toBeNull();
  });
});
