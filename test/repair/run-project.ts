// Check 7's small real projects (test/helpers/run-project-files.mjs) opened for the repair stage:
// the suggestion's generated directive fails to build, so it goes to repair. Builds and runs use
// the real BuildPool, gcc or clang.
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { BuildPool } from '../../src/build/index.js';
import type { EventInput } from '../../src/formats/events.js';
import type { RepairTask } from '../../src/formats/task.js';
import type { DotDiscopop } from '../../src/formats/types.js';
import { answerText, writeRunProject, type RunProjectFiles } from '../helpers/run-project-files.mjs';
import { openFailingTask } from './project.js';

export {
  answerText,
  EXECUTE_PRINTS,
  insertionDiff,
  RACE_C,
  RACE_LOOP_LINE,
  writeRunProject,
  type Layout,
  type RunProjectFiles,
} from '../helpers/run-project-files.mjs';

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

/** An answer as a model writes it: the corrected patch in a diff block. */
export function answerWith(project: Pick<RunProject, 'root' | 'task'>, line: number, directive: string): string {
  return answerText(project.root, project.task.sources.get('1')!, line, directive);
}

export async function createRunProject(o: RunProjectFiles): Promise<RunProject> {
  const { root, dot } = await writeRunProject(o);
  const scratch = path.join(root, 'scratch');
  await mkdir(scratch, { recursive: true });

  const { dp, pool, task, events } = await openFailingTask(
    dot,
    scratch,
    `the generated directive ${o.generated} was meant to fail to build`,
  );
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
