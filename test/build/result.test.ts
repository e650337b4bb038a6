// Workspace paths in build output become the user's paths only where the message stays true.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { inProject } from '../../src/build/result.js';
import type { DotDiscopop } from '../../src/formats/types.js';

function project(): { dp: DotDiscopop; root: string } {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'pr-result-')));
  onTestFinished(() => rmSync(base, { recursive: true, force: true }));
  const root = join(base, 'proj');
  return { root, dp: { projectRoot: root } as DotDiscopop };
}

describe('inProject', () => {
  it('puts the project root in place of the workspace, so the user reads their own paths', () => {
    const { dp, root } = project();
    const text =
      '/scratch/builds-x/w1/tree/src/a.c:3:5: error: boom\nmake: *** [/scratch/builds-x/w1/tree/Makefile:4] Error 1\n';
    expect(inProject(text, '/scratch/builds-x/w1/tree', dp)).toBe(
      `${root}/src/a.c:3:5: error: boom\nmake: *** [${root}/Makefile:4] Error 1\n`,
    );
  });

  it('keeps the workspace path in a line that also names the project path, instead of claiming a path differs from itself', () => {
    const { dp, root } = project();
    const ws = '/scratch/builds-x/w0/tree';
    const cmake = `CMake Error: The current CMakeCache.txt directory ${ws}/build/CMakeCache.txt is different than the directory ${root}/build where CMakeCache.txt was created.`;
    const other = `-- Build files have been written to: ${ws}/build`;
    expect(inProject(`${cmake}\n${other}\n`, ws, dp)).toBe(
      `${cmake}\n-- Build files have been written to: ${root}/build\n`,
    );
  });

  it('does not mistake a longer name that starts like the project root for it', () => {
    const { dp, root } = project();
    const ws = '/scratch/builds-x/w0/tree';
    expect(inProject(`${ws}/a.c and ${root}-old/a.c`, ws, dp)).toBe(`${root}/a.c and ${root}-old/a.c`);
  });
});
