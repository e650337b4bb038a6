// results.json, written whole and atomically: readers (a GUI, CI scripts, `report`) see the
// previous complete file or the new one, never a half-written one.
import { mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { isNotFound, writeFileAtomic } from './fs-atomic.js';
import { repairDir } from './paths.js';
import type { RunResults } from '../formats/results.js';
import {
  type DiscopopRunFacts,
  parseResultsDocument,
  resultsDocument,
  sortedJson,
} from '../formats/results-document.js';

export function resultsPath(dotDir: string): string {
  return join(repairDir(dotDir), 'results.json');
}

/** Written in DiscoPoP's shape (format 2) with sorted keys; `results` is the in-memory form. */

export async function writeResults(dotDir: string, results: RunResults): Promise<void> {
  const document = resultsDocument(results);
  await mkdir(repairDir(dotDir), { recursive: true });
  await writeFileAtomic(resultsPath(dotDir), `${sortedJson(document)}\n`);
}

/** The last run's results, or null when no run has written any. */
export async function readResults(dotDir: string): Promise<RunResults | null> {
  return readResultsFile(resultsPath(dotDir), { dotDir });
}

/**
 * Any results.json either tool wrote (patch-repair's format 2 or 1, DiscoPoP's own), or null when
 * there is none. `facts`: what DiscoPoP's progress.jsonl says of its run, for its inferred run record.
 */
export async function readResultsFile(
  path: string,
  o: { dotDir: string; facts?: Partial<DiscopopRunFacts> },
): Promise<RunResults | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`${path}: not valid JSON`);
  }
  const startedAt = o.facts?.startedAt ?? (await stat(path)).mtime.toISOString();
  const facts = { dotDir: o.dotDir, dryRun: null, backend: null, model: null, finished: true, ...o.facts, startedAt };
  const parsed = parseResultsDocument(value, facts, path);
  if (!parsed.ok) throw new UsageError(parsed.problem);
  return parsed.results;
}
