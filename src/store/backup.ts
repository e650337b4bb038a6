// backups/<id>/ holds the generated patch set of a suggestion; backups/<id>.written the digest of
// the set a repair left in place. DiscoPoP's own patch repair tool keeps the same two files, and
// where the tools meet its contract wins: its digest form, and its rule for a stale backup (the
// folder holds neither the backed-up set nor the written repair, so the generator has rewritten it).
import { mkdir, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { faultPoint } from '../fault.js';
import {
  exists,
  isNotFound,
  listIfPresent,
  removeTree,
  syncDir,
  writeFileAtomic,
  writeFileSynced,
} from './fs-atomic.js';
import { backupDir, backupsDir, suggestionDir, writtenDigestPath } from './paths.js';
import { digestDir, digestSet, discopopDigest, readSet } from './patch-set-files.js';
import { appendRestoreLog } from './restore-log.js';
import { fileProblem } from '../errors.js';
import { compareIds } from '../formats/types.js';

/**
 * What backups/<id>.written says. DiscoPoP's form (bare hex) is what both tools write; the
 * `sha256:` form earlier patch-repair versions wrote is still read. Anything else, or a file that
 * cannot be read, is `unreadable`: nothing can be told from it, so the backup is left alone.
 */
export type WrittenDigest =
  | { kind: 'absent' }
  | { kind: 'unreadable'; problem: string }
  | { kind: 'digest'; form: 'discopop' | 'labelled'; text: string };

export async function readWrittenDigest(dotDir: string, id: string): Promise<WrittenDigest> {
  const path = writtenDigestPath(dotDir, id);
  let text: string;
  try {
    text = (await readFile(path, 'utf8')).trim();
  } catch (error) {
    if (isNotFound(error)) return { kind: 'absent' };
    return { kind: 'unreadable', problem: fileProblem(path, 'read', error) };
  }
  if (/^[0-9a-f]{64}$/.test(text)) return { kind: 'digest', form: 'discopop', text };
  if (/^sha256:[0-9a-f]{64}$/.test(text)) return { kind: 'digest', form: 'labelled', text };
  return { kind: 'unreadable', problem: `${path}: not a patch set digest` };
}

/** Whether the digest names exactly this set of files. */
export function writtenNames(written: WrittenDigest, set: ReadonlyMap<string, Uint8Array>): boolean {
  if (written.kind !== 'digest') return false;
  return written.text === (written.form === 'discopop' ? discopopDigest(set) : digestSet(set));
}

/** Records `set` as what a repair left in patch_generator/<id>/, in DiscoPoP's form. */
export async function writeWrittenDigest(
  dotDir: string,
  id: string,
  set: ReadonlyMap<string, Uint8Array>,
): Promise<void> {
  await writeFileAtomic(writtenDigestPath(dotDir, id), `${discopopDigest(set)}\n`);
}

export async function removeWrittenDigest(dotDir: string, id: string): Promise<void> {
  try {
    await unlink(writtenDigestPath(dotDir, id));
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

/**
 * DiscoPoP's rule for a backup that still belongs to the patches on disk (`_is_current`): the
 * folder holds the backed-up set itself or the repair written on top of it. `unknown` when the
 * .written digest cannot be read: then neither tool may drop or replace the backup.
 */
export async function backupStanding(dotDir: string, id: string): Promise<'current' | 'stale' | 'unknown'> {
  if (!(await exists(backupDir(dotDir, id)))) return 'stale';
  const written = await readWrittenDigest(dotDir, id);
  if (written.kind === 'unreadable') return 'unknown';
  if (!(await exists(suggestionDir(dotDir, id)))) return 'stale';
  const inPlace = await readSet(suggestionDir(dotDir, id));
  if (writtenNames(written, inPlace)) return 'current';
  return digestSet(inPlace) === (await digestDir(backupDir(dotDir, id))) ? 'current' : 'stale';
}

/**
 * Rewrites every `.written` digest of the older `sha256:` form that still names the folder in
 * DiscoPoP's form, which DiscoPoP's tool would otherwise read as stale and drop with its backup.
 * One line each in restore.log; returns the same lines.
 */
export async function upgradeWrittenDigests(dotDir: string): Promise<string[]> {
  const lines: string[] = [];
  for (const id of await listBackups(dotDir)) {
    const written = await readWrittenDigest(dotDir, id);
    if (written.kind !== 'digest' || written.form !== 'labelled') continue;
    const inPlace = await readSet(suggestionDir(dotDir, id));
    if (!writtenNames(written, inPlace)) continue;
    await writeWrittenDigest(dotDir, id, inPlace);
    const line = `rewrote backups/${id}.written in DiscoPoP's digest form; it names the repair in patch_generator/${id}/`;
    await appendRestoreLog(dotDir, line);
    lines.push(line);
  }
  return lines;
}

/**
 * Copies patch_generator/<id>/ to backups/<id>/; the caller has moved any earlier backup aside.
 */
export async function createBackup(dotDir: string, id: string): Promise<void> {
  const source = suggestionDir(dotDir, id);
  // A digest left without its backup names nothing this backup holds.
  await removeWrittenDigest(dotDir, id);
  await installBackup(dotDir, id, await readSet(source));
}

/**
 * Makes `set` the backup of `id`. The copy is made in a hidden folder and renamed into place, so
 * backups/<id>/ is always a complete set; an existing backups/<id>/ is never replaced.
 */
export async function installBackup(dotDir: string, id: string, set: ReadonlyMap<string, Uint8Array>): Promise<void> {
  const target = backupDir(dotDir, id);
  const root = backupsDir(dotDir);
  await mkdir(root, { recursive: true });
  const staging = join(root, `.staging-${id}`);
  await removeTree(staging);
  await mkdir(staging);
  for (const [name, bytes] of set) await writeFileSynced(join(staging, name), bytes);
  await syncDir(staging);
  faultPoint('write-back.after-backup-copy');
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
    return entries
      .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
      .map((e) => e.name)
      .sort(compareIds);
  } catch (error) {
    if (isNotFound(error)) return [];
    throw error;
  }
}
