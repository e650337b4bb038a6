// The static collapse check (src/builtin/collapse-check.ts) wired to the run: every discovery
// build of a suggestion that adds a `collapse(n)` is judged by it whatever the compiler said, and
// every candidate's patch set is checked the same way once it builds. The check reads the
// translation unit the built-in repairer reads: the patched file preprocessed with the build's
// own compiler and flags.
import { readFile } from 'node:fs/promises';
import { preprocessPatched, type BuildPool } from '../build/index.js';
import { addsCollapse, collapseFindings } from '../builtin/collapse-check.js';
import { decodeBytes } from '../bytes.js';
import { applyFilePatch, parsePatches } from '../patch/index.js';
import type { Diagnostic, DotDiscopop, PatchSet } from '../formats/types.js';

/** The findings for a patch set: `patched` gives each file with its patch applied (null: it did not apply). */
export type CollapseCheck = (
  patchSet: PatchSet,
  patched: (fileId: string, patch: string) => Promise<string | null>,
) => Promise<Diagnostic[]>;

export function collapseCheckFor(dp: DotDiscopop, pool: BuildPool): CollapseCheck {
  return async (patchSet, patchedOf) => {
    const files = [];
    for (const [fileId, patch] of patchSet) {
      const source = dp.files.get(fileId);
      if (!source || !addsCollapse(patch)) continue;
      const patched = await patchedOf(fileId, patch);
      if (patched === null) continue;
      const preprocessed = await preprocessPatched({ dp, source, patched, recorded: await pool.recordedCompiles() });
      files.push({
        fileId,
        relPath: source.relPath,
        patch,
        patched,
        ...(preprocessed.ok && { translationUnit: preprocessed.text }),
      });
    }
    return files.length === 0 ? [] : collapseFindings(files);
  };
}

/** The user's file with `patch` applied in memory, as the generated patch set leaves it. */
export function patchedFromDisk(dp: DotDiscopop): (fileId: string, patch: string) => Promise<string | null> {
  return async (fileId, patch) => {
    const source = dp.files.get(fileId);
    if (!source) return null;
    const [parsed] = parsePatches(patch).patches;
    const applied = parsed ? applyFilePatch(decodeBytes(await readFile(source.path)), parsed) : null;
    return applied?.ok && applied.result !== null ? applied.result : null;
  };
}
