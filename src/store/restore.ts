// --restore: every backed-up suggestion gets its generated patch set back, unless the generator has
// rewritten the suggestion since the backup (DiscoPoP's rule: the folder holds neither the backup
// nor the written repair); then the newer patches stay and the stale backup is moved aside to
// patch_repair/superseded/, never deleted: DiscoPoP's tool killed while building a candidate leaves
// exactly that state, with the backup the only copy of the generated set. Each action is one line in
// patch_repair/restore.log.
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { faultPoint } from '../fault.js';
import {
  dropBackupDir,
  listBackups,
  readWrittenDigest,
  removeWrittenDigest,
  upgradeWrittenDigests,
  writtenNames,
} from './backup.js';
import { exists, listIfPresent } from './fs-atomic.js';
import { writeJournal } from './journal.js';
import { backupDir, backupsDir, suggestionDir } from './paths.js';
import { digestDir, digestSet, readSet } from './patch-set-files.js';
import { appendRestoreLog } from './restore-log.js';
import { finishRestore } from './restore-one.js';
import { recoverWriteBack } from './write-back.js';
import { moveBackupAside } from './superseded.js';

export interface RestoreSummary {
  /** Ids whose generated patch set was put back. */
  restored: string[];
  /** Backups dropped because patch_generator/<id>/ holds exactly their bytes. */
  dropped: { id: string; reason: string }[];
  /** Stale backups (the suggestion regenerated or removed since, or left mid-repair by another tool) moved to `to`. */
  movedAside: { id: string; reason: string; to: string }[];
  /** Backups left in place because their .written digest cannot be read. */
  leftAlone: { id: string; reason: string }[];
  /** Interrupted write-backs or restores that were finished first. */
  recovered: string[];
  /** The one-line outcome for the terminal. */
  line: string;
}

export async function restoreAll(dotDir: string): Promise<RestoreSummary> {
  const summary: RestoreSummary = { restored: [], dropped: [], movedAside: [], leftAlone: [], recovered: [], line: '' };
  summary.recovered = await recoverWriteBack(dotDir);
  for (const line of summary.recovered) await appendRestoreLog(dotDir, `recovered ${line}`);
  await upgradeWrittenDigests(dotDir);

  for (const id of await listBackups(dotDir)) {
    const written = await readWrittenDigest(dotDir, id);
    if (written.kind === 'unreadable') {
      const reason = `${written.problem}, so it cannot be told whether patch_generator/${id}/ is the repair or a newer generation; both are left as they are`;
      summary.leftAlone.push({ id, reason });
      await appendRestoreLog(dotDir, `left the backup of ${id}: ${reason}`);
      continue;
    }
    const folder = suggestionDir(dotDir, id);
    const folderExists = await exists(folder);
    const inPlace = await readSet(folder);
    if (folderExists && writtenNames(written, inPlace)) {
      await writeJournal(dotDir, { version: 1, kind: 'restore', id, reason: '--restore' });
      faultPoint('restore.after-journal');
      await finishRestore(dotDir, id);
      summary.restored.push(id);
      await appendRestoreLog(dotDir, `restored ${id}: patch_generator/${id}/ holds the generated patch set again`);
      continue;
    }
    if (folderExists && digestSet(inPlace) === (await digestDir(backupDir(dotDir, id)))) {
      const reason = `the backup is identical to patch_generator/${id}/`;
      // Folder first: a .written digest without its folder is swept below, a folder without its digest is not.
      await dropBackupDir(dotDir, id);
      await removeWrittenDigest(dotDir, id);
      summary.dropped.push({ id, reason });
      await appendRestoreLog(dotDir, `dropped the backup of ${id}: ${reason}`);
      continue;
    }
    const reason = !folderExists
      ? `patch_generator/${id}/ no longer exists`
      : `patch_generator/${id}/ holds neither the backup nor the repair written on top of it (regenerated since, or left mid-repair by a killed run); the patches in it are left alone`;
    const to = await moveBackupAside(dotDir, id, reason);
    if (to !== null) summary.movedAside.push({ id, reason, to });
  }
  await removeOrphanDigests(dotDir);
  summary.line = summaryLine(summary);
  return summary;
}

function summaryLine(s: RestoreSummary): string {
  const parts: string[] = [];
  if (s.restored.length) parts.push(`restored ${count(s.restored.length, 'patch set')} (${s.restored.join(', ')})`);
  if (s.movedAside.length)
    parts.push(
      `moved ${count(s.movedAside.length, 'stale backup')} aside, leaving the patches in patch_generator/ alone: ${s.movedAside.map((m) => `${m.id} to ${m.to}`).join(', ')}`,
    );
  if (s.dropped.length)
    parts.push(
      `dropped ${count(s.dropped.length, 'backup')} identical to the patches in place (${s.dropped.map((d) => d.id).join(', ')})`,
    );
  if (s.leftAlone.length)
    parts.push(
      `left ${count(s.leftAlone.length, 'backup')} with an unreadable .written digest alone (${s.leftAlone.map((d) => d.id).join(', ')})`,
    );
  if (parts.length === 0) return 'Nothing to restore: no backups in patch_repair/backups/.';
  const text = parts.join('; ');
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** A .written digest without its backup folder (a kill between the two removals) means nothing. */
async function removeOrphanDigests(dotDir: string): Promise<void> {
  const names = await listIfPresent(backupsDir(dotDir));
  const backups = new Set(await listBackups(dotDir));
  for (const name of names) {
    if (name.endsWith('.written') && !backups.has(name.slice(0, -'.written'.length))) {
      await unlink(join(backupsDir(dotDir), name));
    }
  }
}
