// Which run `show` and `report` read: the last one (patch_repair/ itself) or, with --run <id>, one
// that later runs moved to patch_repair/history/<id>/. `show --runs` lists them all.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { historyDir, repairDir } from '../store/index.js';
import { isNotFound } from '../store/fs-atomic.js';
import { replayRun } from './run-replay.js';

export interface RunFolder {
  dotDir: string;
  /** patch_repair/ for the last run, else history/<id>/: where its progress.jsonl and attempts/ are. */
  dir: string;
}

export function lastRun(dotDir: string): RunFolder {
  return { dotDir, dir: repairDir(dotDir) };
}

/** `--run <id>`: the run's folder in history/, or the last run when <id> is its id. */
export async function runFolder(dotDir: string, runId: string | undefined): Promise<RunFolder> {
  if (runId === undefined) return lastRun(dotDir);
  const runs = await listRuns(dotDir);
  const found = runs.find((run) => run.id === runId || run.folderName === runId);
  if (!found) {
    throw new UsageError(
      `${historyDir(dotDir)}: no run ${runId} (runs: ${runs.map((run) => run.id).join(', ') || 'none'}; see show --runs)`,
    );
  }
  return { dotDir, dir: found.dir };
}

export interface ListedRun {
  id: string;
  /** The folder's own name under history/ (`<id>-2` for a second run with the same id); null for the last run. */
  folderName: string | null;
  dir: string;
  started: string;
  mode: string;
  finished: boolean;
  counts: Record<string, number>;
}

/** Every run this .discopop recorded, oldest first, the last run at the end. */
export async function listRuns(dotDir: string): Promise<ListedRun[]> {
  let names: string[];
  try {
    names = await readdir(historyDir(dotDir));
  } catch (error) {
    if (!isNotFound(error)) throw error;
    names = [];
  }
  const runs: ListedRun[] = [];
  for (const name of names) {
    const run = await listedRun(dotDir, join(historyDir(dotDir), name), name);
    if (run) runs.push(run);
  }
  runs.sort((a, b) => a.started.localeCompare(b.started));
  const last = await listedRun(dotDir, repairDir(dotDir), null);
  if (last) runs.push(last);
  return runs;
}

/** A folder whose log cannot be replayed (a run stopped as it began) is no run to list. */
async function listedRun(dotDir: string, dir: string, folderName: string | null): Promise<ListedRun | null> {
  let replay;
  try {
    replay = await replayRun(dotDir, dir);
  } catch (error) {
    if (error instanceof UsageError) return null;
    throw error;
  }
  const { run } = replay.results;
  return {
    id: run.id,
    folderName,
    dir,
    started: run.started,
    mode: run.mode,
    finished: replay.finished,
    counts: run.counts,
  };
}
