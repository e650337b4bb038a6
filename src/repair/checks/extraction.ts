// Check 1: the answer holds a patch block for each file it changes, and every block names a file
// of this suggestion's patch set. Paths are resolved by the patch engine against the set, never
// used as given, so `..`, absolute paths elsewhere and other suggestions' files are rejected here.
import { realpathSync } from 'node:fs';
import { mapToPatchSet, parsePatches } from '../../patch/index.js';
import type { FilePatch } from '../../patch/model.js';
import type { DotDiscopop } from '../../formats/types.js';
import type { RepairTask } from '../../formats/task.js';
import { pass, reject, type CheckOutcome } from './result.js';

/** A patch set for a few loop directives is a few kilobytes; anything this large is not one. */
export const MAX_ANSWER_CHARS = 1_000_000;

export interface Extracted {
  /** file id → the answer's patch for that file. */
  byFileId: Map<string, FilePatch>;
}

export function extractCandidate(answer: string, task: RepairTask, dp: Pick<DotDiscopop, 'projectRoot'>): CheckOutcome<Extracted> {
  if (answer.trim() === '') return reject('The answer was empty: it held no patch.');
  if (answer.length > MAX_ANSWER_CHARS) {
    return reject(`The answer is ${answer.length} characters long, more than the ${MAX_ANSWER_CHARS} a patch set is allowed; send only the unified diffs of the files you change.`);
  }
  if (answer.includes('\u0000')) return reject('The answer contains binary data (NUL bytes); send the patches as plain-text unified diffs.');

  // The parser skips prose and code fences around the diffs, as models write them.
  const { patches, problems } = parsePatches(answer);
  const notes = problems.length > 0 ? ` Problems found: ${problems.join('; ')}` : '';
  if (patches.length === 0) {
    return reject(`The answer holds no unified diff (no "--- path", "+++ path" and "@@" hunk lines were found).${notes}`);
  }
  const mapped = mapToPatchSet(patches, task.suggestion.files, dp.projectRoot, { realpath: realpathSync });
  if (!mapped.ok) return reject(mapped.reason);
  if (mapped.byFileId.size === 0) return reject(`The answer's diffs change no file of this patch set.${notes}`);
  return pass({ byFileId: mapped.byFileId });
}
