// backups/<id>/ holds the generated patch set of a suggestion; backups/<id>.written the digest of
// the set a repair left in place. A backup is current when that digest still matches the folder:
// otherwise the generator has rewritten the suggestion since, and the backup is of no use.
import { copyFile, mkdir, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { faultPoint } from '../fault.js';
import { exists, isNotFound, listIfPresent, removeTree, syncDir, writeFileAtomic } from './fs-atomic.js';
import { backupDir, backupsDir, suggestionDir, writtenDigestPath } from './paths.js';
import { listSetFiles } from './patch-set-files.js';
import { compareIds } from '../formats/types.js';

export async function readWrittenDigest(dotDir: string, id: string): Promise<string | null> {
  try {
    return (await readFile(writtenDigestPath(dotDir, id), 'utf8')).trim();
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

export async function writeWrittenDigest(dotDir: string, id: string, digest: string): Promise<void> {
  await writeFileAtomic(writtenDigestPath(dotDir, id), `${digest}\n`);
}

export async function removeWrittenDigest(dotDir: string, id: string): Promise<void> {
  try {
    await unlink(writtenDigestPath(dotDir, id));
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

/** True when backups/<id>/ holds the generated set of what is in patch_generator/<id>/ now. */
export async function hasCurrentBackup(dotDir: string, id: string, folderDigest: string): Promise<boolean> {
  return (await exists(backupDir(dotDir, id))) && (await readWrittenDigest(dotDir, id)) === folderDigest;
}

/**
 * Copies patch_generator/<id>/ to backups/<id>/, replacing a stale backup. The copy is made in a
 * hidden folder and renamed into place, so backups/<id>/ is always a complete set.
 */
export async function createBackup(dotDir: string, id: string): Promise<void> {
  const target = backupDir(dotDir, id);
  const root = backupsDir(dotDir);
  await mkdir(root, { recursive: true });
  const staging = join(root, `.staging-${id}`);
  await removeTree(staging);
  await mkdir(staging);
  const source = suggestionDir(dotDir, id);
  for (const name of await listSetFiles(source)) await copyFile(join(source, name), join(staging, name));
  await syncDir(staging);
  faultPoint('write-back.after-backup-copy');
  await removeWrittenDigest(dotDir, id);
  await dropBackupDir(dotDir, id);
  faultPoint('write-back.after-stale-backup-dropped');
  await rename(staging, target);
  await syncDir(root);
}

/** Removes backups/<id>/ by renaming it out of sight first: a half-deleted backup must never be seen. */
export async function dropBackupDir(dotDir: string, id: string): Promise<void> {
  const trash = join(backupsDir(dotDir), `.trash-${id}`);
  try {
    await rename(backupDir(dotDir, id), trash);
  } catch (error) {
    if (isNotFound(error)) return;
    throw error;
  }
  await syncDir(backupsDir(dotDir));
  await removeTree(trash);
}

/** Staging and trash folders hold nothing a recovery needs. */
export async function removeBackupLeftovers(dotDir: string): Promise<void> {
  const names = await listIfPresent(backupsDir(dotDir));
  for (const name of names) {
    if (name.startsWith('.staging-') || name.startsWith('.trash-')) await removeTree(join(backupsDir(dotDir), name));
    else if (name.startsWith('.') && name.endsWith('.tmp')) await unlink(join(backupsDir(dotDir), name));
  }
}

/** Suggestion ids that have a backup folder. */
export async function listBackups(dotDir: string): Promise<string[]> {
  try {
    const entries = await readdir(backupsDir(dotDir), { withFileTypes: true });
    return entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name).sort(compareIds);
  } catch (error) {
    if (isNotFound(error)) return [];
    throw error;
  }
}
