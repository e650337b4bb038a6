// Check 1: the answer holds a patch block for each file it changes, and every block names a file
// of this suggestion's patch set; an answer offering alternatives yields one candidate for each.
// Blocks are unified diffs, DiscoPoP's `===BEGIN PATCH <file_id>===` blocks (named by their id) or
// V4A updates (docs/patch-engine.md lists the forms). Paths are resolved by the patch engine against
// the set, never used as given, so `..`, absolute paths elsewhere and other suggestions' files are
// rejected here, as is an answer that adds, deletes or renames a file.
import { realpathSync } from 'node:fs';
import { mapBlocks, mergeBlocks, parsePatches, trimmedLines, undoubledPrefixes } from '../../patch/index.js';
import type { FilePatch } from '../../patch/model.js';
import type { DotDiscopop } from '../../formats/types.js';
import type { RepairTask } from '../../formats/task.js';
import { pass, reject, type CheckOutcome } from './result.js';

/** A patch set for a few loop directives is a few kilobytes; anything this large is not one. */
export const MAX_ANSWER_CHARS = 1_000_000;

export interface Extracted {
  /** file id → the answer's patch for that file. */
  byFileId: Map<string, FilePatch>;
  /** The answer's blocks this candidate is made of, numbered from 1 in answer order. */
  blocks: number[];
}

/**
 * The answer's candidate patch sets. One, unless it holds more than one block for the same file:
 * models offer alternatives ("Option A … Option B …"), and merging those would make one broken
 * candidate. Then each alternative is a candidate of its own, walking the blocks in order: a block
 * joins every candidate that has no block for its file yet, and starts a new one when all have.
 * A file with a single block joins every candidate. When the blocks for each file touch disjoint
 * lines they may be one change written in pieces, so that merged reading is tried first.
 */
export function extractAlternatives(
  answer: string,
  task: RepairTask,
  dp: Pick<DotDiscopop, 'projectRoot'>,
): CheckOutcome<Extracted[]> {
  if (answer.trim() === '') return reject('The answer was empty: it held no patch.');
  if (answer.length > MAX_ANSWER_CHARS) {
    return reject(
      `The answer is ${answer.length} characters long, more than the ${MAX_ANSWER_CHARS} a patch set is allowed; send only the unified diffs of the files you change.`,
    );
  }
  if (answer.includes('\u0000'))
    return reject('The answer contains binary data (NUL bytes); send the patches as plain-text unified diffs.');

  // The parser skips prose and code fences around the diffs, as models write them.
  const { patches, problems, refusals } = parsePatches(answer);
  if (refusals.length > 0) return reject(`The answer cannot be a repair: ${refusals.join('; ')}.`);
  const notes = problems.length > 0 ? ` Problems found: ${problems.join('; ')}` : '';
  if (patches.length === 0) {
    return reject(
      `The answer holds no unified diff (no "--- path", "+++ path" and "@@" hunk lines were found).${notes}`,
    );
  }
  const mapped = mapBlocks(patches, task.suggestion.files, dp.projectRoot, { realpath: realpathSync });
  if (!mapped.ok) return reject(mapped.reason);
  const blocks = patches.map((patch, index) => {
    const fileId = mapped.fileIds[index]!;
    return {
      number: index + 1,
      fileId,
      patch: undoubledPrefixes(patch, trimmedLines(task.sources.get(fileId), task.patched.get(fileId))),
    };
  });
  const perFile = new Map<string, typeof blocks>();
  for (const block of blocks) perFile.set(block.fileId, [...(perFile.get(block.fileId) ?? []), block]);
  if ([...perFile.values()].every((list) => list.length === 1)) return pass([merged(blocks)]);

  const alternatives: (typeof blocks)[] = [];
  for (const block of blocks.filter((b) => perFile.get(b.fileId)!.length > 1)) {
    const open = alternatives.filter((alternative) => !alternative.some((b) => b.fileId === block.fileId));
    if (open.length === 0) alternatives.push([block]);
    for (const alternative of open) alternative.push(block);
  }
  const shared = blocks.filter((b) => perFile.get(b.fileId)!.length === 1);
  const candidates = alternatives.map((alternative) =>
    merged([...alternative, ...shared].sort((a, b) => a.number - b.number)),
  );
  const disjoint = [...perFile.values()].every((list) => list.length === 1 || disjointHunks(list.map((b) => b.patch)));
  return pass(disjoint ? [merged(blocks), ...candidates] : candidates);
}

function merged(blocks: { number: number; fileId: string; patch: FilePatch }[]): Extracted {
  const byFileId = new Map<string, FilePatch>();
  for (const { fileId, patch } of blocks) {
    const earlier = byFileId.get(fileId);
    byFileId.set(fileId, earlier === undefined ? patch : mergeBlocks(earlier, patch));
  }
  return { byFileId, blocks: blocks.map((b) => b.number) };
}

/** Whether the blocks' hunks change separate stretches of the old file, each saying where. */
function disjointHunks(patches: FilePatch[]): boolean {
  const ranges = patches
    .flatMap((patch) => patch.hunks)
    .map((hunk) => {
      if (hunk.oldStart === null) return null;
      const length = hunk.lines.filter((line) => line.kind !== 'add').length;
      return [hunk.oldStart, hunk.oldStart + Math.max(length, 1) - 1] as const;
    });
  if (ranges.some((range) => range === null)) return false;
  const sorted = (ranges as (readonly [number, number])[]).sort((a, b) => a[0] - b[0]);
  return sorted.every((range, index) => index === 0 || range[0] > sorted[index - 1]![1]);
}
