// Finding a folder's path in build outputs, and build folders configured at the project's path.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { filesHoldingPath, foldersConfiguredAt } from '../../src/build/location.js';
import { scanTree } from '../../src/build/tree.js';

function folder(files: Record<string, string | Buffer>): string {
  const root = mkdtempSync(join(tmpdir(), 'pr-location-'));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  for (const [rel, bytes] of Object.entries(files)) {
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), bytes);
  }
  return root;
}

describe('filesHoldingPath', () => {
  it('finds the path in text and non-code binary files, also across the reads of a large file, and skips ELF and ar files', async () => {
    const path = '/scratch/builds-x/w0/tree';
    const padding = Buffer.alloc((1 << 20) - 7, 0x20);
    const root = folder({
      'build/CMakeCache.txt': `CMAKE_CACHEFILE_DIR:INTERNAL=${path}/build\n`,
      'build/.ninja_deps': Buffer.concat([Buffer.from([0, 1, 2]), Buffer.from(`${path}/src/a.h`)]),
      'big.log': Buffer.concat([padding, Buffer.from(`${path}\n`)]),
      'src/a.o': Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1]), Buffer.from(`DW_AT_comp_dir ${path}`)]),
      'lib/libk.a': `!<arch>\n${path}`,
      'src/a.d': 'src/a.o: src/a.c src/a.h\n',
    });
    const rels = ['build/CMakeCache.txt', 'build/.ninja_deps', 'big.log', 'src/a.o', 'lib/libk.a', 'src/a.d'];
    expect(await filesHoldingPath(root, rels, [path])).toEqual([
      'big.log',
      'build/.ninja_deps',
      'build/CMakeCache.txt',
    ]);
  });
});

describe('foldersConfiguredAt', () => {
  it('names the build folders whose CMakeCache.txt (or config.status) records the project path, not those configured elsewhere', async () => {
    const project = '/home/u/proj';
    const root = folder({
      'build/CMakeCache.txt': `CMAKE_CACHEFILE_DIR:INTERNAL=${project}/build\n`,
      'build/CMakeFiles/x.txt': project,
      'other/CMakeCache.txt': 'CMAKE_CACHEFILE_DIR:INTERNAL=/somewhere/else/build\n',
      'config.status': `ac_pwd='${project}'\n`,
      'src/a.c': `/* ${project} */\n`,
    });
    expect(await foldersConfiguredAt(root, await scanTree(root), [project])).toEqual([
      { folder: '.', record: 'config.status' },
      { folder: 'build', record: 'CMakeCache.txt' },
    ]);
  });
});
