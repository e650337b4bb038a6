// How further workspaces get their reference state, with real make and gcc: copies of the first
// reference build's outputs when they do not name their folder, a reference build of their own
// when they do. And --exclude, which leaves files out of every workspace.
import { describe, expect, it } from 'vitest';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../../src/errors.js';
import {
  DEFAULT_COMPILE,
  generatorPatch,
  insertBefore,
  makeProject,
  patchSetOf,
  poolPerTest,
  type TestProject,
} from './project.js';

const start = poolPerTest();

/**
 * What CMake does in miniature: the build folder remembers where it was configured and refuses to
 * work anywhere else. A patched build takes a second, so the first workspace stays busy while the
 * others are made and they get work. Each build says which workspace ran it.
 */
const REMEMBERS_ITS_FOLDER = [
  '#!/bin/sh',
  'cd "$DP_PROJECT_ROOT_DIR" || exit 1',
  'echo "workspace=$(basename "$(dirname "$DP_PROJECT_ROOT_DIR")")"',
  'if [ -f build/where ] && [ "$(cat build/where)" != "$DP_PROJECT_ROOT_DIR" ]; then',
  '  echo "error: build/ was configured in $(cat build/where), not here"; exit 1',
  'fi',
  'mkdir -p build && echo "$DP_PROJECT_ROOT_DIR" > build/where',
  'if grep -q omp src/a.c; then sleep 1; fi',
  'make CC="$CC" CFLAGS="$CFLAGS" && ./prog',
  '',
].join('\n');

function referenceBuilds(p: TestProject): number {
  return p.events.filter((e) => e.type === 'build-started' && e.purpose === 'reference').length;
}

describe('workspaces beyond the first', () => {
  it('run their own reference build when the reference outputs hold the workspace path, so no build fails for where it ran', async () => {
    const p = await makeProject({ compileSh: REMEMBERS_ITS_FOLDER });
    const b = await start(p, { jobs: 3 });
    expect((await b.referenceBuild()).ok).toBe(true);
    expect(b.workspacePlacement).toMatchObject({ outputs: 'rebuilt', pathFiles: ['build/where'], referenceBuilds: 1 });
    const patch = await generatorPatch(p, 'src/a.c', insertBefore('for (i = 0', '#pragma omp parallel for'));
    const results = await Promise.all(
      ['1', '2', '3', '4', '5', '6'].map((id) => b.build(id, patchSetOf({ 'src/a.c': patch }), 'discovery')),
    );
    expect(results.map((r) => r.firstError ?? 'ok')).toEqual(results.map(() => 'ok'));
    const ran = new Set(results.map((r) => /workspace=(w\d+)/.exec(r.output)?.[1]));
    expect(ran.size).toBeGreaterThan(1);
    expect(referenceBuilds(p)).toBe(3);
    expect(b.workspacePlacement).toMatchObject({ outputs: 'rebuilt', referenceBuilds: 3, workspaces: 3 });
    expect(p.events).toContainEqual(
      expect.objectContaining({ type: 'notice', level: 'info', message: expect.stringContaining('build/where') }),
    );
  });

  it('start from copies of the reference outputs on a plain Makefile project, even when -g puts the folder into every object', async () => {
    const p = await makeProject({
      settings: { CC: 'gcc', CXX: 'g++', CFLAGS: '-O0 -g -fopenmp', CXXFLAGS: '-O0 -g -fopenmp' },
    });
    const b = await start(p, { jobs: 2 });
    expect((await b.referenceBuild()).ok).toBe(true);
    // Not a vacuous pass: the object really names the workspace it was compiled in.
    const object = await readFile(join(b.root, 'reference-outputs', 'src', 'a.o'));
    expect(object.includes(Buffer.from(join(b.root, 'w0', 'tree')))).toBe(true);
    const patch = await generatorPatch(p, 'src/a.c', insertBefore('for (i = 0', '#pragma omp parallel for'));
    const results = await Promise.all(
      ['1', '2', '3'].map((id) => b.build(id, patchSetOf({ 'src/a.c': patch }), 'discovery')),
    );
    expect(results.every((r) => r.ok)).toBe(true);
    expect(referenceBuilds(p)).toBe(1);
    expect(b.workspacePlacement).toEqual({ outputs: 'copied', pathFiles: [], referenceBuilds: 1, workspaces: 2 });
  });
});

describe('--exclude', () => {
  it('leaves matching files and folders out of every workspace and warns about a glob that matches nothing', async () => {
    const listing =
      '#!/bin/sh\ncd "$DP_PROJECT_ROOT_DIR" || exit 1\nfind build data notes -type f 2>/dev/null | sort\n' +
      DEFAULT_COMPILE.split('\n').slice(2).join('\n');
    const p = await makeProject({ compileSh: listing });
    for (const rel of ['build/CMakeCache.txt', 'data/input.bin', 'data/keep.txt', 'notes/plan.txt']) {
      await mkdir(join(p.root, rel, '..'), { recursive: true });
      await writeFile(join(p.root, rel), rel);
    }
    const b = await start(p, { jobs: 1, exclude: ['build/', './data/*.bin', 'no-such-folder'] });
    const result = await b.referenceBuild();
    expect(result.ok).toBe(true);
    expect(result.output.split('\n').filter((line) => /^(build|data|notes)\//.test(line))).toEqual([
      'data/keep.txt',
      'notes/plan.txt',
    ]);
    expect(p.events).toContainEqual(
      expect.objectContaining({
        type: 'notice',
        level: 'warning',
        message: `--exclude no-such-folder: matches nothing in ${p.root}`,
      }),
    );
  });

  it('refuses a glob that would leave out a source the patches change or compile.sh, naming what it hits', async () => {
    const p = await makeProject();
    const create = (exclude: string[]) => start(p, { exclude });
    await expect(create(['src/*.c'])).rejects.toThrow(UsageError);
    await expect(create(['src/*.c'])).rejects.toThrow(
      '--exclude src/*.c: leaves out src/a.c, src/b.c, src/main.c, src/scale.c: source files DiscoPoP analysed (FileMapping.txt), which the patches change',
    );
    await expect(create(['.discopop/project'])).rejects.toThrow(
      '--exclude .discopop/project: leaves out .discopop/project/configs/default/compile.sh: every build runs it',
    );
  });
});
