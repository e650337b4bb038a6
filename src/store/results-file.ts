// results.json, written whole and atomically: readers (a GUI, CI scripts, `report`) see the
// previous complete file or the new one, never a half-written one.
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { isNotFound, writeFileAtomic } from './fs-atomic.js';
import { repairDir } from './paths.js';
import { type ResultsFile, ResultsFileSchema } from '../formats/results.js';
import { zodProblems } from '../formats/zod-problems.js';

export function resultsPath(dotDir: string): string {
  return join(repairDir(dotDir), 'results.json');
}

export async function writeResults(dotDir: string, results: ResultsFile): Promise<void> {
  const valid = ResultsFileSchema.parse(results);
  await mkdir(repairDir(dotDir), { recursive: true });
  await writeFileAtomic(resultsPath(dotDir), `${JSON.stringify(valid, null, 2)}\n`);
}

/** The last run's results, or null when no run has written any. */
export async function readResults(dotDir: string): Promise<ResultsFile | null> {
  const path = resultsPath(dotDir);
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
  const parsed = ResultsFileSchema.safeParse(value);
  if (!parsed.success) {
    throw new UsageError(zodProblems(path, parsed.error).join('\n'));
  }
  return parsed.data;
}
