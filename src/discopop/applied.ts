// patch_applicator/applied_suggestions.json (formats.md §1.6). While a suggestion is applied its
// code is already in the sources, so every build (reference included) would see it twice.
import { join } from 'node:path';
import { AppliedSuggestionsSchema } from '../formats/discopop.js';
import { RefusedError } from '../errors.js';
import type { DotDiscopop } from '../formats/types.js';
import { readJsonFile } from './json-file.js';
import type { Problems } from './problems.js';

/** Applied suggestion ids; a missing file means none are applied (DiscoPoP creates it lazily). */
export async function readApplied(o: { dotDir: string; problems: Problems }): Promise<string[]> {
  const file = join(o.dotDir, 'patch_applicator', 'applied_suggestions.json');
  const read = await readJsonFile(file, AppliedSuggestionsSchema, o.problems);
  return read.kind === 'ok' ? read.value.applied : [];
}

export function refuseIfApplied(dp: Pick<DotDiscopop, 'applied' | 'dotDir'>): void {
  if (dp.applied.length === 0) return;
  const plural = dp.applied.length === 1 ? 'suggestion' : 'suggestions';
  throw new RefusedError(
    `${dp.applied.length} ${plural} applied to the sources (${dp.applied.join(', ')}); ` +
      `roll them back first with \`discopop_patch_applicator -C\` run inside ${dp.dotDir}`,
  );
}
