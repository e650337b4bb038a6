// patch_repair/superseded/<id>-<time>/: where a backup DiscoPoP's rule calls stale goes instead of
// being deleted. Stale means the folder holds neither the backed-up set nor the written repair, but
// that state is also what DiscoPoP's tool leaves when it is killed while a candidate is being
// built, and then the "stale" backup is the only copy of the generated set. Neither tool lists this
// folder (DiscoPoP lists only numeric names in backups/), so nothing restores or replaces it.
import { mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { faultPoint } from '../fault.js';
import { exists, isNotFound, syncDir, writeFileAtomic } from './fs-atomic.js';
import { backupDir, backupsDir, repairDir, safeName, writtenDigestPath } from './paths.js';
import { appendRestoreLog } from './restore-log.js';

export function supersededDir(dotDir: string): string {
  return join(repairDir(dotDir), 'superseded');
}

/**
 * Makes a new superseded/<id>-<time>/ for `id`, the only place that names one. mkdir claims the
 * name, so two moves in the same second (or two processes) never share a folder: the later one
 * gets `-2`, `-3`, … Returns the folder and its name as restore.log and the terminal give it.
 */
export async function newSupersededFolder(dotDir: string, id: string): Promise<{ dir: string; shown: string }> {
  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const base = `${safeName(id, 'suggestion id')}-${stamp}`;
  await mkdir(supersededDir(dotDir), { recursive: true });
  for (let n = 1; ; n++) {
    const name = n === 1 ? base : `${base}-${n}`;
    const dir = join(supersededDir(dotDir), name);
    try {
      await mkdir(dir);
      return { dir, shown: `patch_repair/superseded/${name}/` };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/**
 * Moves backups/<id>/ and backups/<id>.written into a new superseded/<id>-<time>/ (the backup as
 * `<id>/`, the digest as `<id>.written`, the reason in `reason.txt`) and logs it in restore.log.
 * Returns the folder relative to the .discopop folder, or null when there was no backup.
 */
export async function moveBackupAside(dotDir: string, id: string, reason: string): Promise<string | null> {
  const backup = backupDir(dotDir, id);
  if (!(await exists(backup))) return null;
  const { dir: target, shown: where } = await newSupersededFolder(dotDir, id);
  await writeFileAtomic(join(target, 'reason.txt'), `${reason}\n`);
  // The digest first: killed in between, the backup stays where both tools still see it.
  await moveIfPresent(writtenDigestPath(dotDir, id), join(target, `${id}.written`));
  faultPoint('write-back.after-stale-digest-moved');
  await rename(backup, join(target, id));
  await syncDir(target);
  await syncDir(backupsDir(dotDir));
  await appendRestoreLog(dotDir, `moved the stale backup of ${id} aside to ${where} (nothing deleted): ${reason}`);
  return where;
}

async function moveIfPresent(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}
