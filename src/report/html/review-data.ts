// Everything the review page shows, gathered from the .discopop folder: the replayed run, and per
// suggestion its generated patch set, its tries and the patch to put beside the generated one.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isNotFound } from '../../store/fs-atomic.js';
import { readAttempts, type StoredAttempt } from '../../store/index.js';
import { backupDir, suggestionDir } from '../../store/paths.js';
import type { SuggestionRecord } from '../../store/results.js';
import { replayRun, type ReplayedRun } from '../run-replay.js';

export interface Candidate {
  attempt: number;
  accepted: boolean;
  /** attempts/<id>/<n>/<kind>/: canonical when the try got that far, else what was extracted. */
  kind: 'canonical' | 'extracted';
  patches: Map<string, string>;
  /** Why it was rejected: the check and its reason. */
  reason: string | null;
}

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

function candidateOf(attempts: StoredAttempt[]): Candidate | null {
  const accepted = attempts.find((a) => a.verdict?.outcome === 'accepted');
  const chosen = accepted ?? attempts.filter((a) => a.canonical.size > 0 || a.extracted.size > 0).at(-1);
  if (!chosen) return null;
  const kind = chosen.canonical.size > 0 ? 'canonical' : 'extracted';
  const v = chosen.verdict;
  return {
    attempt: chosen.attempt,
    accepted: chosen === accepted,
    kind,
    patches: kind === 'canonical' ? chosen.canonical : chosen.extracted,
    reason: v && !accepted ? `${v.rejected_by ? `rejected by ${v.rejected_by}` : v.outcome}${v.reason ? `: ${v.reason}` : ''}` : null,
  };
}
