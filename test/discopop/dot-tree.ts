// Tiny .discopop trees written inline into a temporary folder, so each test shows the exact files
// it depends on.
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { onTestFinished } from 'vitest';

/** Writes `files` (paths relative to the new root; `<root>` in contents is replaced) and returns the root. */
export function writeTree(files: Record<string, string | null>): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'pr-dot-')));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  addFiles(root, files);
  return root;
}

/** A path ending in `/` is an empty folder; `null` removes what an earlier layer wrote. */
export function addFiles(root: string, files: Record<string, string | null>): void {
  for (const [rel, content] of Object.entries(files)) {
    const path = join(root, rel);
    if (content === null) {
      rmSync(path, { recursive: true, force: true });
      continue;
    }
    if (rel.endsWith('/')) {
      mkdirSync(path, { recursive: true });
      continue;
    }
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content.replaceAll('<root>', root));
    if (rel.endsWith('.sh')) chmodSync(path, 0o755);
  }
}

export const PATCH_1 = `--- <root>/src/main.c\n+++ <root>/src/main.c\n@@ -3,0 +4 @@\n+#pragma omp parallel for\n`;

/** A minimal valid project: one source, one suggestion (3), configuration `tiny` from seq_settings. */
export function minimalProject(extra: Record<string, string | null> = {}): { root: string; dot: string } {
  const root = writeTree({
    'src/main.c': 'int main(void) { return 0; }\n',
    '.discopop/FileMapping.txt': '1\t<root>/src/main.c\n',
    '.discopop/patch_generator/3/1.patch': PATCH_1,
    '.discopop/project/configs/tiny/compile.sh': '#!/bin/sh\n$CC $CFLAGS -o demo ../../../../src/main.c\n',
    '.discopop/project/configs/tiny/seq_settings.json': '{"CC": "gcc", "CXX": "g++", "CFLAGS": "-O2", "CXXFLAGS": ""}',
    ...extra,
  });
  return { root, dot: join(root, '.discopop') };
}

/** A do_all entry of explorer/patterns.json as DiscoPoP 5.0.2 writes it (formats.md §1.3). */
export function doAllEntry(id: number, start: string, end: string) {
  return {
    pattern_id: id,
    node_id: start,
    start_line: start,
    end_line: end,
    applicable_pattern: true,
    pragma: '#pragma omp parallel for',
    first_private: [] as string[],
    private: [] as string[],
    last_private: [] as string[],
    shared: [] as string[],
    reduction: [] as string[],
    scheduling_clause: 'static',
    collapse_level: 1,
  };
}
