// patch_generator/.patch-repair-staging/<id>/: the bytes a change to patch_generator/<id>/ needs,
// kept beside the folder (so one rename moves a file in: the same file system) but outside it, so
// DiscoPoP's digest of the folder never counts them. A write-back keeps `new/` (the files it renames
// in), `before/` (the folder as it was) and `backup/` (the generated set the backup holds, should
// another tool's restore drop the backup while the folder is half written); a restore keeps
// `restore/` (the set it puts back) and `install/` (one file on its way in). DiscoPoP lists only
// numeric names in patch_generator/, and patch-repair's reader skips this one.
import { mkdir, rename, rmdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { exists, listIfPresent, removeTree, syncDir, writeFileSynced } from './fs-atomic.js';
import { safeName } from './paths.js';
import { readSet } from './patch-set-files.js';
import { STAGING_FOLDER } from '../formats/types.js';

export function stagingDir(dotDir: string, id: string): string {
  return join(dotDir, 'patch_generator', STAGING_FOLDER, safeName(id, 'suggestion id'));
}

/** Writes a set into `dir`, each file flushed, then the folder; `afterFile` runs after each file. */
export async function writeStagedSet(
  dir: string,
  set: ReadonlyMap<string, Uint8Array>,
  afterFile: () => void = () => {},
): Promise<void> {
  await makeDirs(dir);
  for (const [name, bytes] of set) {
    await writeFileSynced(join(dir, name), bytes);
    afterFile();
  }
  await syncDir(dir);
}

/** The same, made under a temporary name and renamed into place: `dir` exists only when complete. */
export async function writeStagedSetWhole(dir: string, set: ReadonlyMap<string, Uint8Array>): Promise<void> {
  const partial = `${dir}.partial`;
  await removeTree(partial);
  await writeStagedSet(partial, set);
  await rename(partial, dir);
}

/** The staged set, or null when `dir` is not there. */
export async function readStagedSet(dir: string): Promise<Map<string, Buffer> | null> {
  return (await exists(dir)) ? readSet(dir) : null;
}

/**
 * Removes a suggestion's staging folder by renaming it out of sight first: recovery must never read
 * a half-deleted `before/` or `restore/` as the whole set.
 */
export async function removeStaging(dotDir: string, id: string): Promise<void> {
  const dir = stagingDir(dotDir, id);
  if (!(await exists(dir))) return;
  const trash = join(dir, '..', `.trash-${id}`);
  await removeTree(trash);
  await rename(dir, trash);
  await syncDir(join(dir, '..'));
  await removeTree(trash);
  await removeEmptyRoot(dotDir);
}

/**
 * After recovery, when no journal is left: whatever a kill left here (trash, or a suggestion's
 * staging whose journal was already removed, which comes first so that recovery never reads a
 * journal without its staging), and the shared folder itself.
 */
export async function removeStagingLeftovers(dotDir: string): Promise<void> {
  const root = join(dotDir, 'patch_generator', STAGING_FOLDER);
  for (const name of await listIfPresent(root)) await removeTree(join(root, name));
  await removeEmptyRoot(dotDir);
}

// The shared parent goes with its last suggestion, so a finished run leaves patch_generator/ as it found it.
async function removeEmptyRoot(dotDir: string): Promise<void> {
  try {
    await rmdir(join(dotDir, 'patch_generator', STAGING_FOLDER));
  } catch {
    // Another suggestion's staging is still there (ENOTEMPTY), or it is gone already.
  }
}

/**
 * mkdir -p one level at a time: Node's recursive mkdir reports a read-only file system as "does not
 * exist", and the write-back tells a cause every later write would meet by its code (EROFS).
 */
async function makeDirs(dir: string): Promise<void> {
  if (await exists(dir)) return;
  await makeDirs(dirname(dir));
  try {
    await mkdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}
