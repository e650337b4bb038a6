// Small real C programs for check 7 (--check-run) and the files of their project: a .discopop
// folder with one suggestion, an execute.sh, either configuration layout. Plain JavaScript, so the
// check-run bench (scripts/bench/check-run.mjs) writes the same projects as the tests.
import { chmod, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/**
 * Each iteration writes `t`, sleeps, then reads it: with `t` shared, another thread overwrites it
 * during the sleep in nearly every iteration, so the sum is wrong in every run at 2 threads.
 */
export const RACE_C = `#include <stdio.h>
#include <unistd.h>
#define N 300
double a[N];
int main(void) {
    int i;
    double t;
    for (i = 0; i < N; i++) a[i] = i;
    for (i = 0; i < N; i++) {
        t = a[i] * 2.0;
        usleep(200);
        a[i] = t + 1.0;
    }
    double sum = 0.0;
    for (i = 0; i < N; i++) sum += a[i];
    printf("iterations %d\\n", N);
    printf("sum %.6f\\n", sum);
    return 0;
}
`;
/** The loop of RACE_C (and LAST_C) the suggestion parallelizes (1-based line of its `for`). */
export const RACE_LOOP_LINE = 9;
/** A repair of RACE_C that shares the written `t`. */
export const RACY = '    #pragma omp parallel for shared(a,t)';

/**
 * RACE_C that also prints `t` after the loop. LAST_TWICE names `t` twice; the built-in repairer
 * keeps the reduction, which builds and runs right at 1 thread, but at 2 threads `t` ends as the
 * sum of both threads' last values. Only lastprivate (LAST_RIGHT) keeps the last one.
 */
export const LAST_C = RACE_C.replace('double t;', 'double t = 0.0;').replace(
  '    return 0;',
  '    printf("last %.6f\\n", t);\n    return 0;',
);
export const LAST_TWICE = '    #pragma omp parallel for shared(a) lastprivate(t) reduction(+:t)';
export const LAST_RIGHT = '    #pragma omp parallel for shared(a) lastprivate(t)';

export const EXECUTE_PRINTS = '#!/bin/sh\n"$DP_PROJECT_ROOT_DIR/demo"\n';

/** `--- a +++ b` inserting `directive` above line `line` (1-based) of src/main.c, with 3 lines of context. */
export function insertionDiff(root, source, line, directive, header = '') {
  const lines = source.split('\n');
  const from = Math.max(1, line - 3);
  const before = lines.slice(from - 1, line - 1);
  const after = lines.slice(line - 1, line + 2);
  return [
    `--- ${root}/src/main.c${header}`,
    `+++ ${root}/src/main.c${header}`,
    `@@ -${from},${before.length + after.length} +${from},${before.length + after.length + 1} @@`,
    ...before.map((l) => ` ${l}`),
    `+${directive}`,
    ...after.map((l) => ` ${l}`),
    '',
  ].join('\n');
}

/** An answer as a model writes it: the corrected patch in a diff block. */
export function answerText(root, source, line, directive) {
  return `Corrected patch:\n\n\`\`\`diff\n${insertionDiff(root, source, line, directive)}\`\`\`\n`;
}

/** The project and its .discopop folder on disk, in a fresh temporary folder. */
export async function writeRunProject(o) {
  const root = await mkdtemp(path.join(os.tmpdir(), 'pr-runs-'));
  const configs = '.discopop/project/configs';
  const compile = '#!/bin/sh\n$CC $CFLAGS -o "$DP_PROJECT_ROOT_DIR/demo" "$DP_PROJECT_ROOT_DIR/src/main.c"\n';
  const settings = JSON.stringify({ CC: o.compiler ?? 'gcc', CXX: 'g++', CFLAGS: o.seqCflags ?? '-O1', CXXFLAGS: '' });
  const shared = o.layout === 'shared';
  const files = {
    'src/main.c': o.mainC,
    '.discopop/FileMapping.txt': `1\t${root}/src/main.c\n`,
    '.discopop/patch_generator/1/1.patch': insertionDiff(
      root,
      o.mainC,
      o.loopLine,
      o.generated,
      '\t2026-11-30 14:20:37.315505892 +0000',
    ),
    [`${configs}/${shared ? '' : 'tiny/'}compile.sh`]: compile,
    [`${configs}/${shared ? '' : 'tiny/'}seq_settings.json`]: settings,
    [`${configs}/tiny/execute.sh`]: o.execute ?? EXECUTE_PRINTS,
    ...(o.parSettings && { [`${configs}/tiny/par_settings.json`]: JSON.stringify(o.parSettings) }),
  };
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), content);
  }
  // DiscoPoP's init makes both scripts executable; the shared layout runs them with bash anyway.
  await chmod(path.join(root, configs, shared ? 'compile.sh' : 'tiny/compile.sh'), 0o755);
  await chmod(path.join(root, configs, 'tiny/execute.sh'), 0o755);
  return { root, dot: path.join(root, '.discopop') };
}
