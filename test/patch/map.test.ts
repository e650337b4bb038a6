// An answer's file patches map onto the suggestion's patch set by DiscoPoP's file ids or by path,
// never used as given: ids outside the suggestion, ambiguous basenames and symlinks leaving the
// project are refused.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mapToPatchSet } from '../../src/patch/map.js';
import { parsePatches } from '../../src/patch/parse.js';
import type { PatchFile } from '../../src/formats/types.js';

const ROOT = '/home/dev/demo';

function patchFile(fileId: string, relPath: string): PatchFile {
  const path = `${ROOT}/${relPath}`;
  return {
    fileId,
    patchPath: `${ROOT}/.discopop/patch_generator/3/${fileId}.patch`,
    text: `--- ${path}\t2026-11-30 14:20:37.315505892 +0000\n+++ ${path}.discopop_patch_generator.temp\t2026-11-30 14:20:38.094634531 +0000\n@@ -1 +1,2 @@\n+#pragma omp parallel for \n x;\n`,
    source: { id: fileId, path, relPath },
  };
}

const SET = [patchFile('1', 'src/main.c'), patchFile('2', 'src/util/vec.c')];

function block(path: string | null): string {
  const header = path === null ? [] : [`--- ${path}`, `+++ ${path}`];
  return [...header, '@@ -1 +1 @@', '-x;', '+y;'].join('\n');
}

function mapped(text: string, files: readonly PatchFile[] = SET, root = ROOT) {
  return mapToPatchSet(parsePatches(text).patches, files, root);
}

describe('mapToPatchSet', () => {
  it.each([
    ['the exact absolute path', `${ROOT}/src/util/vec.c`],
    [
      'the generator header with its temp suffix and timestamp',
      `${ROOT}/src/util/vec.c.discopop_patch_generator.temp\t2026-11-30 14:20:38.094634531 +0000`,
    ],
    ['the project-relative path', 'src/util/vec.c'],
    ['the git a/ b/ form', 'a/src/util/vec.c'],
    ['a unique basename', 'vec.c'],
  ])('maps by %s', (_, path) => {
    const result = mapped(block(path));
    expect(result.ok && [...result.byFileId.keys()]).toEqual(['2']);
  });

  it("maps a DiscoPoP block by the file id in its marker, not by its header's path", () => {
    const result = mapped(`===BEGIN PATCH 2===\n${block('src/main.c')}\n===END PATCH 2===\n`);
    expect(result.ok && [...result.byFileId.keys()]).toEqual(['2']);
  });

  it('refuses a DiscoPoP block for a file id outside the suggestion, naming the ids it has', () => {
    const result = mapped(`===BEGIN PATCH 9===\n${block('src/main.c')}\n===END PATCH 9===\n`);
    expect(result).toEqual({
      ok: false,
      reason:
        'block 1 (===BEGIN PATCH 9===): file id 9 is not part of this suggestion; its file ids are 1 (src/main.c), 2 (src/util/vec.c)',
    });
  });

  it('maps the original absolute path of a generated patch after the project moved', () => {
    const moved = SET.map((file) => ({
      ...file,
      source: { ...file.source, path: `/scratch/demo/${file.source.relPath}` },
    }));
    const result = mapToPatchSet(parsePatches(block(`${ROOT}/src/main.c`)).patches, moved, '/scratch/demo');
    expect(result.ok && [...result.byFileId.keys()]).toEqual(['1']);
  });

  it('maps several blocks, merging two blocks for one file in file order', () => {
    const text = [block('src/main.c').replace('@@ -1 +1 @@', '@@ -9 +9 @@'), block('vec.c'), block('src/main.c')].join(
      '\n',
    );
    const result = mapped(text);
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect([...result.byFileId.keys()]).toEqual(['1', '2']);
      expect(result.byFileId.get('1')!.hunks.map((hunk) => hunk.oldStart)).toEqual([1, 9]);
    }
  });

  it('maps a block without file header when the set has a single file', () => {
    const result = mapped(block(null), SET.slice(0, 1));
    expect(result.ok && [...result.byFileId.keys()]).toEqual(['1']);
    expect(mapped(block(null))).toEqual({
      ok: false,
      reason: 'block 1: has no --- / +++ file header, and this suggestion changes 2 files; name the file',
    });
  });

  it.each([
    [
      'a file outside the patch set',
      'src/other.c',
      /not a file of this suggestion's patch set \(src\/main\.c, src\/util\/vec\.c\)/,
    ],
    ['a path with ..', 'src/../../etc/passwd', /contains `\.\.` and would leave the project/],
    ['an absolute path outside the root', '/etc/main.c', /absolute path outside the project root \/home\/dev\/demo/],
  ])('rejects %s with a reason', (_, path, reason) => {
    const result = mapped(block(path));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });

  it('rejects a basename that matches more than one file', () => {
    const files = [patchFile('1', 'src/a/k.c'), patchFile('2', 'src/b/k.c')];
    const result = mapped(block('k.c'), files);
    expect(result).toEqual({
      ok: false,
      reason:
        'block 1 (k.c): file name k.c matches 2 files of the patch set (src/a/k.c, src/b/k.c); give the project-relative path',
    });
  });

  describe('symbolic links', () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'map-test-')));
    afterAll(() => rmSync(base, { recursive: true, force: true }));

    it('rejects a path that leaves the project through a symlink, even when its basename is in the set', () => {
      const root = join(base, 'project');
      mkdirSync(join(root, 'src'), { recursive: true });
      mkdirSync(join(base, 'outside'));
      symlinkSync(join(base, 'outside'), join(root, 'link'));
      const files = [
        { ...patchFile('1', 'src/main.c'), source: { id: '1', path: join(root, 'src/main.c'), relPath: 'src/main.c' } },
      ];
      const result = mapToPatchSet(parsePatches(block('link/main.c')).patches, files, root, { realpath: realpathSync });
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.reason).toContain('through a symbolic link');
    });
  });
});
