// Small real C programs for check 7 (--check-run): a .discopop folder with one suggestion whose
// generated directive names an LLVM temporary (so it fails to build and goes to repair), an
// execute.sh, and either configuration layout. Builds and runs use the real BuildPool, gcc or clang.
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { BuildPool } from '../../src/build/index.js';
import type { EventInput } from '../../src/formats/events.js';
import type { RepairTask } from '../../src/formats/task.js';
import type { DotDiscopop } from '../../src/formats/types.js';
import { openFailingTask } from './project.js';

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
/** The loop of RACE_C the suggestion parallelizes (1-based line of its `for`). */
export const RACE_LOOP_LINE = 9;

/** y is read and written by the loop: a reduction over y gives each thread a zeroed copy to read. */
export const SECTION_C = `#include <stdio.h>
#define N 100
double x[N], y[N];
int main(void) {
    int i;
    for (i = 0; i < N; i++) { x[i] = i * 0.5; y[i] = 1.0 + i; }
    for (i = 0; i < N; i++) {
        y[i] += x[i] * y[i];
    }
    double s = 0.0;
    for (i = 0; i < N; i++) s += y[i];
    printf("checksum %.10e\\n", s);
    return 0;
}
`;
export const SECTION_LOOP_LINE = 7;

export type Layout = 'per-configuration' | 'shared';

export interface RunProject {
  root: string;
  dot: string;
  scratch: string;
  dp: DotDiscopop;
  pool: BuildPool;
  task: RepairTask;
  events: EventInput[];
  dispose(): Promise<void>;
}

/** `--- a +++ b` inserting `directive` above line `line` (1-based) of src/main.c, with 3 lines of context. */
export function insertionDiff(root: string, source: string, line: number, directive: string, header = ''): string {
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
export function answerWith(project: Pick<RunProject, 'root' | 'task'>, line: number, directive: string): string {
  return answerText(project.root, project.task.sources.get('1')!, line, directive);
}

export function answerText(root: string, source: string, line: number, directive: string): string {
  return `Corrected patch:\n\n\`\`\`diff\n${insertionDiff(root, source, line, directive)}\`\`\`\n`;
}

export const EXECUTE_PRINTS = '#!/bin/sh\n"$DP_PROJECT_ROOT_DIR/demo"\n';

export interface RunProjectFiles {
  mainC: string;
  loopLine: number;
  generated: string;
  execute?: string;
  layout?: Layout;
  compiler?: 'gcc' | 'clang';
}

/** The project and its .discopop folder on disk, in a fresh temporary folder. */
export async function writeRunProject(o: RunProjectFiles): Promise<{ root: string; dot: string }> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'pr-runs-'));
  const configs = '.discopop/project/configs';
  const compile = '#!/bin/sh\n$CC $CFLAGS -o "$DP_PROJECT_ROOT_DIR/demo" "$DP_PROJECT_ROOT_DIR/src/main.c"\n';
  const settings = JSON.stringify({ CC: o.compiler ?? 'gcc', CXX: 'g++', CFLAGS: '-O1', CXXFLAGS: '' });
  const shared = o.layout === 'shared';
  const files: Record<string, string> = {
    'src/main.c': o.mainC,
    '.discopop/FileMapping.txt': `1\t${root}/src/main.c\n`,
    '.discopop/patch_generator/1/1.patch': insertionDiff(root, o.mainC, o.loopLine, o.generated, '\t2026-11-30 14:20:37.315505892 +0000'),
    [`${configs}/${shared ? '' : 'tiny/'}compile.sh`]: compile,
    [`${configs}/${shared ? '' : 'tiny/'}seq_settings.json`]: settings,
    [`${configs}/tiny/execute.sh`]: o.execute ?? EXECUTE_PRINTS,
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

export async function createRunProject(o: RunProjectFiles): Promise<RunProject> {
  const { root, dot } = await writeRunProject(o);
  const scratch = path.join(root, 'scratch');
  await mkdir(scratch, { recursive: true });

  const { dp, pool, task, events } = await openFailingTask(dot, scratch, `the generated directive ${o.generated} was meant to fail to build`);
  return {
    root,
    dot,
    scratch,
    dp,
    pool,
    task,
    events,
    async dispose() {
      await pool.dispose();
      await rm(root, { recursive: true, force: true });
    },
  };
}
