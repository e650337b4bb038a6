// Everything the review page shows, gathered from the .discopop folder: the replayed run, and per
// suggestion its generated patch set, its tries and the patch to put beside the generated one.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isNotFound } from '../../store/fs-atomic.js';
import { readAttempts, type StoredAttempt } from '../../store/index.js';
import { backupDir, suggestionDir } from '../../store/paths.js';
import type { SuggestionRecord } from '../../formats/results.js';
import { type Candidate, candidateOf } from '../candidate.js';
import { replayRun, type ReplayedRun } from '../run-replay.js';

export interface SuggestionReview {
  id: string;
  /** null: the run ended before the suggestion finished. */
  record: SuggestionRecord | null;
  generated: Map<string, string>;
  attempts: StoredAttempt[];
  /** The accepted patch set, else the last rejected one; null when no try produced a patch. */
  candidate: Candidate | null;
}

export interface ReviewData {
  replay: ReplayedRun;
  suggestions: SuggestionReview[];
}

export async function gatherReview(dotDir: string): Promise<ReviewData> {
  const replay = await replayRun(dotDir);
  const ids = [...replay.results.suggestions.map((r) => r.id), ...replay.unfinished];
  const suggestions: SuggestionReview[] = [];
  for (const id of ids) {
    const attempts = await readAttempts(dotDir, id);
    suggestions.push({
      id,
      record: replay.results.suggestions.find((r) => r.id === id) ?? null,
      generated: await generatedPatches(dotDir, id),
      attempts,
      candidate: candidateOf(attempts),
    });
  }
  return { replay, suggestions };
}

/** After a write-back the generated set is the backup; otherwise it is still in patch_generator/. */
async function generatedPatches(dotDir: string, id: string): Promise<Map<string, string>> {
  const backup = await readPatchDir(backupDir(dotDir, id));
  return backup ?? (await readPatchDir(suggestionDir(dotDir, id))) ?? new Map();
}

async function readPatchDir(dir: string): Promise<Map<string, string> | null> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
  const patches = new Map<string, string>();
  for (const name of names.filter((n) => n.endsWith('.patch')).sort(byNumberThenName)) {
    patches.set(name.slice(0, -'.patch'.length), await readFile(join(dir, name), 'utf8'));
  }
  return patches;
}

function byNumberThenName(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}
