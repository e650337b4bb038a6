// Flags only compile.sh knows: the grid's extent (-DNX=…) and its header folder (-Iinclude) are
// written in the project's Makefile, not in the settings. The reference build records the
// compiler calls it made (src/build/compiler-record.ts); the built-in repairer preprocesses the
// patched source with that call's flags, sees the macro-declared array parameter and repairs the
// reduction, and the repaired program, built by compile.sh, prints what the original prints.
// The inner loop declares its own `j`: a `j` shared by the threads would race and make the
// checksum differ now and then under either compiler.
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BuildPool } from '../../src/build/pool.js';
import { compileOf } from '../../src/build/compiler-record.js';
import { preprocessPatched } from '../../src/build/preprocess.js';
import { builtinRepair } from '../../src/builtin/index.js';
import { runProcess } from '../../src/process.js';
import type { DotDiscopop, SourceFile, Suggestion } from '../../src/formats/types.js';

const FILES: Record<string, string> = {
  'include/grid.h': '#ifndef NX\n#error "NX is set by the Makefile"\n#endif\n#define GRID_1D(name) name[NX]\n',
  'src/relax.c': `#include "grid.h"

void relax(int steps, double GRID_1D(y), const double GRID_1D(x))
{
  int s;
  for (s = 0; s < steps; s++)
    for (int j = 0; j < NX; j++)
      y[j] += 0.5 * x[j] * (s + 1);
}
`,
  'src/main.c': `#include <stdio.h>
#include "grid.h"

void relax(int steps, double GRID_1D(y), const double GRID_1D(x));

int main(void)
{
  double y[NX] = {0}, x[NX];
  for (int j = 0; j < NX; j++) x[j] = j * 0.25;
  relax(40, y, x);
  double sum = 0;
  for (int j = 0; j < NX; j++) sum += y[j] * (j % 3 + 1);
  printf("checksum %.6f\\n", sum);
  return 0;
}
`,
  Makefile:
    'CPPFLAGS = -DNX=48 -Iinclude\nOBJS = src/main.o src/relax.o\nprog: $(OBJS)\n\t$(CC) $(CFLAGS) -o $@ $(OBJS)\n',
};
const COMPILE_SH = '#!/bin/sh\ncd "$DP_PROJECT_ROOT_DIR" || exit 1\nmake -s CC="$CC" CFLAGS="$CFLAGS" && ./prog\n';
const DIRECTIVE = '#pragma omp parallel for reduction(+:y)';

let base = '';
let pool: BuildPool | undefined;
afterEach(async () => {
  await pool?.dispose();
  if (base) await rm(base, { recursive: true, force: true });
  pool = undefined;
  base = '';
});

async function project(compiler: string): Promise<DotDiscopop> {
  base = await mkdtemp(join(tmpdir(), 'recorded-flags-'));
  const root = join(base, 'project');
  for (const [rel, text] of Object.entries(FILES)) {
    await mkdir(dirname(join(root, rel)), { recursive: true });
    await writeFile(join(root, rel), text);
  }
  const configDir = join(root, '.discopop', 'project', 'configs', 'default');
  await mkdir(configDir, { recursive: true });
  const compileScript = join(configDir, 'compile.sh');
  await writeFile(compileScript, COMPILE_SH);
  await chmod(compileScript, 0o755);
  const settings = { CC: compiler, CFLAGS: '-O0 -fopenmp' };
  const source: SourceFile = { id: '1', path: join(root, 'src/relax.c'), relPath: 'src/relax.c' };
  return {
    dotDir: join(root, '.discopop'),
    projectRoot: root,
    files: new Map([['1', source]]),
    suggestions: [],
    config: {
      name: 'default',
      dir: configDir,
      compileScript,
      settings,
      settingsSource: 'par_settings.json',
      layout: 'per-configuration',
    },
    applied: [],
    hasHotspotData: false,
    notices: [],
  };
}

/** The generator's patch: the directive above the `s` loop, made by real `diff -Naru`. */
async function generatedPatch(dp: DotDiscopop): Promise<{ patched: string; patch: string }> {
  const path = dp.files.get('1')!.path;
  const lines = FILES['src/relax.c']!.split('\n');
  lines.splice(
    lines.findIndex((line) => line.includes('for (s = 0')),
    0,
    `  ${DIRECTIVE}`,
  );
  const patched = lines.join('\n');
  await writeFile(`${path}.discopop_patch_generator.temp`, patched);
  const diff = await runProcess({
    command: 'diff',
    args: ['-Naru', path, `${path}.discopop_patch_generator.temp`],
    cwd: base,
  });
  await rm(`${path}.discopop_patch_generator.temp`);
  if (diff.kind !== 'exited' || diff.exitCode !== 1) throw new Error('diff -Naru failed');
  return { patched, patch: diff.stdout };
}

describe.each(['gcc', 'clang'])('%s: flags the Makefile adds', (compiler) => {
  it('are recorded by the reference build and let the repairer see the macro-declared array', async () => {
    const dp = await project(compiler);
    pool = await BuildPool.create({
      dp,
      scratchDir: join(base, 'scratch'),
      jobs: 1,
      threads: 4,
      timeoutMs: 120_000,
      signal: new AbortController().signal,
      emit: () => undefined,
    });
    const reference = await pool.referenceBuild();
    expect(reference.ok, reference.output).toBe(true);
    const recorded = await pool.recordedCompiles();
    expect(recorded.ok, recorded.ok ? '' : recorded.reason).toBe(true);
    if (!recorded.ok) return;
    const call = compileOf(recorded.compiles, 'src/relax.c');
    expect(call).toMatchObject({ compiler, cwd: dp.projectRoot });
    expect(call!.args).toEqual(expect.arrayContaining(['-DNX=48', '-Iinclude', '-fopenmp']));

    const { patched, patch } = await generatedPatch(dp);
    const suggestion: Suggestion = {
      id: '7',
      dir: join(dp.dotDir, 'patch_generator', '7'),
      files: [{ fileId: '1', patchPath: '', text: patch, source: dp.files.get('1')! }],
      pattern: null,
      hotspot: null,
    };
    const build = await pool.build('7', new Map([['1', patch]]), 'discovery');
    expect(build.ok).toBe(false);

    // The settings alone miss -DNX and -Iinclude: the unit cannot be made, and the decline says why.
    const fromSettings = await preprocessPatched({ dp, source: dp.files.get('1')!, patched });
    expect(fromSettings).toMatchObject({
      ok: false,
      reason: expect.stringContaining('with the settings on src/relax.c failed'),
    });
    const task = {
      suggestion,
      sources: new Map([['1', FILES['src/relax.c']!]]),
      generated: new Map([['1', patch]]),
      patched: new Map([['1', patched]]),
      build,
    };
    const alone = await builtinRepair({
      ...task,
      translationUnits: new Map(),
      translationUnitsMissing: new Map([['1', fromSettings.ok ? '' : fromSettings.reason]]),
    });
    expect(alone).toMatchObject({ kind: 'declined', reason: expect.stringContaining('read without the preprocessor') });

    const unit = await preprocessPatched({ dp, source: dp.files.get('1')!, patched, recorded });
    expect(unit.ok, unit.ok ? '' : unit.reason).toBe(true);
    if (!unit.ok) return;
    expect(unit.text).toContain('double y[48]');
    const result = await builtinRepair({ ...task, translationUnits: new Map([['1', unit.text]]) });
    expect(result.kind, result.kind === 'declined' ? result.reason : '').toBe('answer');
    if (result.kind !== 'answer') return;
    expect(result.text).toContain('+  #pragma omp parallel for reduction(+:y[0:NX])');

    // compile.sh builds the repaired program and runs it with OMP_NUM_THREADS=4: same checksum.
    const answerPatch = /```diff\n([\s\S]*?)```/.exec(result.text)![1]!;
    const repaired = await pool.build('7', new Map([['1', answerPatch]]), 'verify');
    expect(repaired.ok, repaired.output).toBe(true);
    expect(repaired.output).toContain(/checksum \S+/.exec(reference.output)![0]);
    expect(await readFile(dp.files.get('1')!.path, 'utf8')).toBe(FILES['src/relax.c']);
  }, 120_000);
});
