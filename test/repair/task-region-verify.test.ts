// DiscoPoP's task region closed before its last task's statement, through verify on a real
// project built by gcc: moving the closing brace below the statement is the repair; moving the
// last task below the brace also builds and governs the same statement, but the task then runs
// outside the region made for it, and check 5 must refuse it before the build.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verify, type VerifyDeps } from '../../src/repair/verify.js';
import { createTestProject, type TestProject } from './project.js';

const FIB_C = `#include <stdio.h>
int fib(int n) {
    int x, y;
    if (n < 2) return n;
    x = fib(n - 1);
    y = fib(n - 2);
    return x + y;
}
int main(void) {
    printf("%d\\n", fib(20));
    return 0;
}
`;

const CONTEXT_BEFORE = [
  ' int fib(int n) {',
  '     int x, y;',
  '     if (n < 2) return n;',
  '+#pragma omp parallel',
  '+#pragma omp single',
  '+{',
  '+#pragma omp task',
  '     x = fib(n - 1);',
];
const CONTEXT_AFTER = ['     return x + y;', ' }'];

/** A diff of fib.c whose hunk ends with `lastTask`: the lines from the first task's statement on. */
function fibDiff(from: string, to: string, lastTask: string[]): string {
  const body = [...CONTEXT_BEFORE, ...lastTask, ...CONTEXT_AFTER];
  const oldCount = body.filter((line) => !line.startsWith('+')).length;
  return [`--- ${from}`, `+++ ${to}`, `@@ -2,${oldCount} +2,${body.length} @@`, ...body, ''].join('\n');
}

const GENERATOR_FROM = '<root>/src/main.c\t2026-11-30 14:20:37.315505892 +0000';
const GENERATOR_TO = '<root>/src/main.c.discopop_patch_generator.temp\t2026-11-30 14:20:38.094634531 +0000';
const GENERATED = fibDiff(GENERATOR_FROM, GENERATOR_TO, ['+#pragma omp task', '+}', '     y = fib(n - 2);']);
const BRACE_MOVED = ['+#pragma omp task', '     y = fib(n - 2);', '+}'];
const TASK_MOVED = ['+}', '+#pragma omp task', '     y = fib(n - 2);'];

function answer(root: string, lastTask: string[]): string {
  return ['```diff', fibDiff(`${root}/src/main.c`, `${root}/src/main.c`, lastTask), '```', ''].join('\n');
}

let project: TestProject;
let deps: VerifyDeps;

beforeAll(async () => {
  project = await createTestProject({ source: FIB_C, generatedPatch: GENERATED });
  deps = { dp: project.dp, options: { strict: false }, pool: project.pool, scratchDir: project.scratch };
});
afterAll(async () => {
  await project?.dispose();
});

describe('a task region closed before its last task', () => {
  it("is repaired by moving the closing brace below the last task's statement", async () => {
    const verdict = await verify(answer(project.root, BRACE_MOVED), project.task, deps);
    expect(verdict.accepted, verdict.accepted ? '' : verdict.reason).toBe(true);
  });

  it('is not repaired by moving the last task below the brace, which builds: check 5 rejects it before the build', async () => {
    const taskMoved = fibDiff(GENERATOR_FROM, GENERATOR_TO, TASK_MOVED).replaceAll('<root>', project.root);
    expect((await project.pool.build('1', new Map([['1', taskMoved]]), 'verify')).ok).toBe(true);
    const verdict = await verify(answer(project.root, TASK_MOVED), project.task, deps);
    expect(verdict.checks.map((check) => [check.check, check.passed])).toEqual([
      ['extraction', true],
      ['dry-run-apply', true],
      ['apply', true],
      ['canonicalize', true],
      ['directives-kept', false],
    ]);
    expect(verdict.accepted ? '' : verdict.reason).toMatch(
      /^src\/main\.c: the directive `#pragma omp task` above `y = fib\(n - 2\);` \(line 6\) was moved out of the block `#pragma omp single` governs, which the patch opens before `x = fib\(n - 1\);` \(line 5\); .*move the block's closing brace below the statement/,
    );
  });
});
