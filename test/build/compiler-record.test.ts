// The wrappers that record the reference build's compiler calls (src/build/compiler-record.ts),
// run by a real shell around the real gcc.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { makeCompilerRecorder, readRecordedCompiles } from '../../src/build/compiler-record.js';
import { runProcess } from '../../src/process.js';

let scratch = '';
afterEach(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

it('records a call made after compile.sh put another folder before the wrappers on PATH, and reaches the real compiler', async () => {
  scratch = await mkdtemp(join(tmpdir(), 'pr-recorder-'));
  const recorder = await makeCompilerRecorder(join(scratch, 'wrappers'), {
    searchPath: process.env['PATH'] ?? '',
    settings: {},
  });
  expect(recorder.names).toContain('gcc');
  const outcome = await runProcess({
    command: 'sh',
    args: [
      '-c',
      `PATH=${join(scratch, 'not-a-compiler')}:$PATH; export PATH; gcc -DN=4 -c "$1" -o "$2"`,
      'sh',
      'src/x.c',
      join(scratch, 'x.o'),
    ],
    cwd: scratch,
    env: { ...recorder.env, CPATH: join(scratch, 'include') },
    input: '',
    timeoutMs: 30_000,
  });
  expect(outcome.kind).toBe('exited');
  // The source does not exist: the real gcc says so; a wrapper that found itself again would never end.
  expect(outcome.kind === 'exited' && outcome.stdout + outcome.stderr).toMatch(/src\/x\.c: No such file or directory/);
  const recorded = await readRecordedCompiles(recorder, {
    workspaceRoots: [scratch],
    projectRoot: '/home/user/project',
  });
  expect(recorded).toEqual({
    ok: true,
    compiles: [
      {
        compiler: 'gcc',
        cwd: '/home/user/project',
        args: ['-DN=4', '-c', 'src/x.c', '-o', '/home/user/project/x.o'],
        operands: ['src/x.c'],
        // What the compiler reads from its environment, as the call had it: PATH without the wrappers.
        env: expect.objectContaining({
          CPATH: '/home/user/project/include',
          PATH: `/home/user/project/not-a-compiler:${process.env['PATH']}`,
        }),
      },
    ],
  });
});
