// The run's scratch folder (workspaces, agent conversations) lives outside the project, under the
// OS temporary directory or --work-dir. patch_repair/scratch.json records it so that the next run
// removes what a killed run left behind (its folder, and through the caller its Slurm jobs); a
// folder whose run is still alive is never touched.
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { ScratchFileSchema, type ScratchEntry } from '../formats/run-state.js';
import { systemErrorWords, UsageError } from '../errors.js';
import { exists, isNotFound, removeTree, writeFileAtomic } from './fs-atomic.js';
import { isLiveOnThisHost, thisOwner } from './process-alive.js';
import { repairDir, safeName } from './paths.js';

const PREFIX = 'patch-repair-';
/** Written into every scratch folder; cleanup deletes only folders that carry it. */
const MARKER = '.patch-repair-scratch';

export interface RunScratch {
  dir: string;
  dispose(): Promise<void>;
}

export function scratchRecordPath(dotDir: string): string {
  return join(repairDir(dotDir), 'scratch.json');
}

export async function createRunScratch(o: {
  dotDir: string;
  workDir?: string | null;
  runId: string;
  launcher?: 'local' | 'slurm';
}): Promise<RunScratch> {
  const parent = o.workDir ?? tmpdir();
  let dir: string | undefined;
  try {
    await mkdir(parent, { recursive: true });
    dir = await mkdtemp(join(parent, `${PREFIX}${safeName(o.runId, 'run id')}-`));
    await writeFile(join(dir, MARKER), `${o.runId}\n`);
  } catch (error) {
    if (dir !== undefined) await removeTree(dir);
    const which = o.workDir ? '--work-dir' : 'the temporary directory (choose another with --work-dir)';
    throw new UsageError(
      `${parent}: ${which}: cannot create the run's scratch folder there: ${systemErrorWords(error)}`,
    );
  }
  const entry: ScratchEntry = {
    dir,
    run_id: o.runId,
    ...thisOwner(),
    created: new Date().toISOString(),
    ...(o.launcher === 'slurm' && { launcher: o.launcher }),
  };
  await updateRecord(o.dotDir, (runs) => [...runs, entry]);
  let disposed = false;
  return {
    dir,
    async dispose() {
      if (disposed) return;
      disposed = true;
      await removeTree(dir);
      await updateRecord(o.dotDir, (runs) => runs.filter((run) => run.dir !== dir));
    },
  };
}

/**
 * Removes the scratch folders of runs that are gone; returns one line per folder removed.
 * `beforeRemove` ends what such a run may have left running elsewhere (its Slurm jobs still
 * writing into the folder) and returns lines to report.
 */
export async function cleanupStaleScratch(
  dotDir: string,
  beforeRemove: (run: { run_id: string; launcher: 'local' | 'slurm' }) => Promise<string[]> = async () => [],
): Promise<string[]> {
  const notices: string[] = [];
  await updateRecord(dotDir, async (runs) => {
    const kept: ScratchEntry[] = [];
    for (const run of runs) {
      if (isLiveOnThisHost(run) || run.host !== thisOwner().host) {
        kept.push(run);
        continue;
      }
      notices.push(...(await beforeRemove({ run_id: run.run_id, launcher: run.launcher ?? 'local' })));
      if (await isOurScratch(run)) {
        await removeTree(run.dir);
        notices.push(`removed the scratch folder ${run.dir} left by run ${run.run_id} (pid ${run.pid} is gone)`);
      }
    }
    return kept;
  });
  return notices;
}

/** A damaged or edited scratch.json must never make the cleanup delete an unrelated folder. */
async function isOurScratch(run: ScratchEntry): Promise<boolean> {
  if (!basename(run.dir).startsWith(PREFIX)) return false;
  try {
    return (await readFile(join(run.dir, MARKER), 'utf8')).trim() === run.run_id;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

async function updateRecord(
  dotDir: string,
  change: (runs: ScratchEntry[]) => ScratchEntry[] | Promise<ScratchEntry[]>,
): Promise<void> {
  const path = scratchRecordPath(dotDir);
  const runs = await readRecord(path);
  const next = await change(runs);
  if (next.length === 0 && !(await exists(path))) return;
  await mkdir(repairDir(dotDir), { recursive: true });
  await writeFileAtomic(path, `${JSON.stringify({ version: 1, runs: next }, null, 2)}\n`);
}

async function readRecord(path: string): Promise<ScratchEntry[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (isNotFound(error)) return [];
    throw error;
  }
  // The record is written atomically, so damage means someone edited it; folders it named are then
  // not ours to judge, and starting afresh loses nothing but stale temp folders.
  try {
    const parsed = ScratchFileSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data.runs : [];
  } catch {
    return [];
  }
}
