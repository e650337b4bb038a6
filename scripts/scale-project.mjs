// The generated scale project: N translation units of loop kernels (plus filler functions that
// give the optimiser realistic work), a Makefile without header dependencies, and a .discopop
// folder in DiscoPoP's layout — FileMapping.txt, a configuration with compile.sh and
// par_settings.json, and one patch_generator/<id>/<file-id>.patch per suggestion made by real
// `diff -Naru`, about one in ten of them broken the way DiscoPoP breaks them (a body-local named in
// private()). Used by `npm run bench -- discovery` and the discovery exactness tests.
//
// generateProject(base, tus, suggestions, fillers) → { root, dp, pathDependent, broken }
// (`dp` is the DotDiscopop patch-repair reads from the folder; `broken` the ids generated broken).
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runProcess } from '../dist/process.js';

const SETTINGS = { CC: 'gcc', CXX: 'g++', CFLAGS: '-O2 -fopenmp', CXXFLAGS: '-O2 -fopenmp' };
const MAKEFILE = [
  'SRCS = $(sort $(wildcard src/*.c))',
  'OBJS = $(SRCS:.c=.o)',
  'prog: $(OBJS)',
  '\t$(CC) $(CFLAGS) -o $@ $(OBJS) -lm',
  'src/%.o: src/%.c src/common.h',
  '\t$(CC) $(CFLAGS) -c -o $@ $<',
  '',
].join('\n');
const COMPILE_SH = '#!/bin/sh\ncd "$DP_PROJECT_ROOT_DIR" || exit 1\nmake CC="$CC" CFLAGS="$CFLAGS"\n';
/** The same build, plus what CMake does in miniature: a file that remembers where it was configured. */
const PATH_DEPENDENT_COMPILE_SH = [
  '#!/bin/sh',
  'cd "$DP_PROJECT_ROOT_DIR" || exit 1',
  'if [ -f configured-in ] && [ "$(cat configured-in)" != "$DP_PROJECT_ROOT_DIR" ]; then echo "error: configured in $(cat configured-in)"; exit 1; fi',
  'echo "$DP_PROJECT_ROOT_DIR" > configured-in',
  'make CC="$CC" CFLAGS="$CFLAGS"',
  '',
].join('\n');

/** One loop kernel; `pragma` is inserted above its `for` by the suggestions. */
function kernel(tu, k) {
  return [
    `double k${tu}_${k}(int n, double *restrict a, const double *restrict b) {`,
    '    int i;',
    '    double s = 0.0;',
    '    for (i = 0; i < n; i++) {',
    `        double t = b[i] * 1.0001 + ${k}.0;`,
    '        a[i] = t * t + sqrt(t);',
    '        s += a[i];',
    '    }',
    '    return s;',
    '}',
  ].join('\n');
}

/** Work for the optimiser so one translation unit takes a realistic fraction of a second. */
function filler(tu, f) {
  const cases = Array.from(
    { length: 24 },
    (_, c) => `        case ${c}: acc = acc * ${c + 2}.5 + x[(j + ${c}) % m] / (1.0 + acc * acc); break;`,
  );
  return [
    `double f${tu}_${f}(const double *x, int m, int steps) {`,
    '    double acc = 0.0;',
    '    for (int j = 0; j < steps; j++) {',
    '        switch ((j * 7 + m) % 24) {',
    ...cases,
    '        }',
    '    }',
    '    return acc;',
    '}',
  ].join('\n');
}

/** The generator's insertion: a new line right above the loop of the named kernel. */
function insertAboveLoop(text, signature, line) {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.startsWith(signature));
  const loop = lines.findIndex((l, i) => i > start && l.startsWith('    for (i = 0'));
  lines.splice(loop, 0, line);
  return lines.join('\n');
}

export async function generateProject(base, tus, suggestions, fillers) {
  const root = join(base, 'project');
  const dotDir = join(root, '.discopop');
  const configDir = join(dotDir, 'project', 'configs', 'bench');
  await mkdir(join(root, 'src'), { recursive: true });
  await mkdir(configDir, { recursive: true });
  const loopsPerTu = Math.ceil(suggestions / tus);
  await writeFile(join(root, 'Makefile'), MAKEFILE);
  await writeFile(join(root, 'src', 'common.h'), '#include <math.h>\n#define N 1024\n');
  const files = new Map();
  for (let tu = 0; tu < tus; tu++) {
    const rel = `src/tu_${String(tu).padStart(3, '0')}.c`;
    const parts = ['#include "common.h"'];
    for (let k = 0; k < loopsPerTu; k++) parts.push(kernel(tu, k));
    for (let f = 0; f < fillers; f++) parts.push(filler(tu, f));
    await writeFile(join(root, rel), parts.join('\n\n') + '\n');
    files.set(String(tu + 1), { id: String(tu + 1), path: join(root, rel), relPath: rel });
  }
  const main = [
    '#include <stdio.h>',
    '#include "common.h"',
    'int main(void) {',
    '    printf("ok\\n");',
    '    return 0;',
    '}',
    '',
  ].join('\n');
  await writeFile(join(root, 'src', 'main.c'), main);
  await writeFile(join(dotDir, 'FileMapping.txt'), [...files.values()].map((f) => `${f.id}\t${f.path}\n`).join(''));
  await writeFile(join(configDir, 'compile.sh'), COMPILE_SH);
  await chmod(join(configDir, 'compile.sh'), 0o755);
  await writeFile(join(configDir, 'par_settings.json'), JSON.stringify(SETTINGS));
  const pathDependentDir = join(dotDir, 'project', 'configs', 'bench-path-dependent');
  await mkdir(pathDependentDir, { recursive: true });
  await writeFile(join(pathDependentDir, 'compile.sh'), PATH_DEPENDENT_COMPILE_SH);
  await chmod(join(pathDependentDir, 'compile.sh'), 0o755);
  await writeFile(join(pathDependentDir, 'par_settings.json'), JSON.stringify(SETTINGS));

  const list = [];
  const broken = new Set();
  for (let s = 0; s < suggestions; s++) {
    const tu = s % tus;
    const loop = Math.floor(s / tus);
    const file = files.get(String(tu + 1));
    // About one in ten names a body-local in private(): "'t' undeclared", as DiscoPoP does.
    const bad = s % 10 === 3;
    if (bad) broken.add(String(s));
    const pragma = `    #pragma omp parallel for private(i${bad ? ',t' : ''}) shared(a,b) reduction(+:s) `;
    const original = await readFile(file.path, 'utf8');
    const patched = insertAboveLoop(original, `double k${tu}_${loop}(`, pragma);
    const temp = `${file.path}.discopop_patch_generator.temp`;
    await writeFile(temp, patched);
    const diff = await runProcess({ command: 'diff', args: ['-Naru', file.path, temp], cwd: dotDir });
    await rm(temp);
    if (diff.kind !== 'exited' || diff.exitCode !== 1) throw new Error(`diff -Naru failed for suggestion ${s}`);
    const dir = join(dotDir, 'patch_generator', String(s));
    await mkdir(dir, { recursive: true });
    const patchPath = join(dir, `${file.id}.patch`);
    await writeFile(patchPath, diff.stdout);
    list.push({
      id: String(s),
      dir,
      files: [{ fileId: file.id, patchPath, text: diff.stdout, source: file }],
      pattern: null,
      hotspot: 'YES',
    });
  }
  const dp = {
    dotDir,
    projectRoot: root,
    files,
    suggestions: list,
    config: {
      name: 'bench',
      dir: configDir,
      compileScript: join(configDir, 'compile.sh'),
      settings: SETTINGS,
      settingsSource: 'par_settings.json',
    },
    applied: [],
    hasHotspotData: false,
    notices: [],
  };
  const pathDependent = {
    ...dp,
    config: {
      ...dp.config,
      name: 'bench-path-dependent',
      dir: pathDependentDir,
      compileScript: join(pathDependentDir, 'compile.sh'),
    },
  };
  return { root, dp, pathDependent, broken };
}
